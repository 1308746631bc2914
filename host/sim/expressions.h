// Expression nodes of the simulator program.
#pragma once

#include "sim/nodes.h"
#include "sim/ops/op_table.h"
#include "sim/window.h"

#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

class ConstExpr : public Expr {
 public:
  explicit ConstExpr(Value v) : value_(std::move(v)) {}
  const Value& value() const { return value_; }
  Value eval(Frame&) const override { return value_; }
  bool writes_nothing() const override { return true; }
  bool try_int(Frame&, int64_t& out) const override {
    if (value_.kind != Value::Kind::Int && value_.kind != Value::Kind::Bool) return false;
    out = value_.i;
    return true;
  }

 private:
  Value value_;
};

class VarExpr : public Expr {
 public:
  explicit VarExpr(int slot) : slot_(slot) {}
  int slot() const { return slot_; }
  Value eval(Frame& frame) const override;
  bool writes_nothing() const override { return true; }
  bool try_int(Frame& frame, int64_t& out) const override;

 private:
  int slot_;
};

enum class BinOp { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Eq, Ne, Lt, Le, Gt, Ge, And, Or };

class BinOpExpr : public Expr {
 public:
  // `tensor_op` is the op used when the left operand is a tensor (null: not supported).
  BinOpExpr(BinOp op, std::string symbol, ExprPtr lhs, ExprPtr rhs, const OpDef* tensor_op)
      : op_(op), symbol_(std::move(symbol)), lhs_(std::move(lhs)), rhs_(std::move(rhs)),
        tensor_op_(tensor_op) {}
  BinOp op() const { return op_; }
  const Expr& lhs() const { return *lhs_; }
  const Expr& rhs() const { return *rhs_; }
  Value eval(Frame& frame) const override;
  bool writes_nothing() const override { return lhs_->writes_nothing() && rhs_->writes_nothing(); }
  bool try_int(Frame& frame, int64_t& out) const override;

 private:
  BinOp op_;
  std::string symbol_;
  ExprPtr lhs_, rhs_;
  const OpDef* tensor_op_;
};

class UnaryExpr : public Expr {
 public:
  UnaryExpr(bool is_not, ExprPtr operand)
      : is_not_(is_not), operand_(std::move(operand)), neg_op_(op_table().find("neg")) {}
  Value eval(Frame& frame) const override;
  bool writes_nothing() const override { return operand_->writes_nothing(); }

 private:
  bool is_not_;
  ExprPtr operand_;
  const OpDef* neg_op_;
};

class SubscriptExpr : public Expr {
 public:
  SubscriptExpr(ExprPtr base, std::vector<IndexItem> items, std::string text);
  int base_slot() const { return base_slot_; }
  const std::vector<IndexItem>& items() const { return items_; }
  const std::string& text() const { return text_; }
  Value eval(Frame& frame) const override;
  // A window only reads: it writes nothing when its base and bounds write nothing.
  bool writes_nothing() const override;

 private:
  ExprPtr base_;
  int base_slot_ = -1;  // the base's variable when it is a plain one (x[...]), read in place
  std::vector<IndexItem> items_;
  std::string text_;
};

class CallExpr : public Expr {
 public:
  CallExpr(const OpDef* op, std::vector<ExprPtr> args, std::vector<std::pair<std::string, ExprPtr>> kwargs);
  const OpDef& op() const { return *op_; }
  const std::vector<ExprPtr>& args() const { return args_; }
  bool has_kwargs() const { return !kwargs_.empty(); }
  Value eval(Frame& frame) const override;
  WrittenCorner eval_into(Frame& frame, const at::Tensor& dst) const override;
  bool writes_nothing() const override;
  bool transient() const { return transient_; }
  // A call the loader moved out of its own statement into the next one (an assignment to a
  // variable that statement alone reads): its failures still name its own line.
  void set_line(int line) { line_ = line; }
  int line() const { return line_; }

 private:
  Value eval_here(Frame& frame) const;
  WrittenCorner eval_into_here(Frame& frame, const at::Tensor& dst) const;
  OpArgs evaluate_args(Frame& frame) const;
  const OpDef* op_;
  std::vector<ExprPtr> args_;
  std::vector<std::pair<std::string, ExprPtr>> kwargs_;
  // The arguments (bit k: argument k) given as a plain variable that the op takes whole:
  // for the task graph, a read of the whole tensor (and a write too at the one it writes).
  uint32_t whole_args_ = 0;
  // A pl.load handed straight to an op whose result is new memory, in a call where nothing
  // else writes: its tile lives only inside that op, so it may view the memory it loads
  // rather than copy it (OpArgs::transient).
  bool transient_ = false;
  // The call heads nested FP32 add / sub / mul / div calls run a row at a time (sim/row_nest.h).
  bool row_nest_ = false;
  int line_ = 0;  // 0: the statement's
};

class SequenceExpr : public Expr {
 public:
  SequenceExpr(bool is_tuple, std::vector<ExprPtr> items)
      : is_tuple_(is_tuple), items_(std::move(items)) {}
  Value eval(Frame& frame) const override;
  bool writes_nothing() const override;

 private:
  bool is_tuple_;
  std::vector<ExprPtr> items_;
};

// Writes a tensor value into a destination view (its valid region; see assign_value).
WrittenCorner assign_into(const Value& v, const at::Tensor& dst);

// An op of the table run on evaluated arguments, its result checked under
// PYPTO_SIM_NAN_CHECK: as a value, or into `dst` (straight when the op can, as
// Expr::eval_into).
Value run_op(const OpDef& op, const OpArgs& args);
WrittenCorner run_op_into(const OpDef& op, const OpArgs& args, const at::Tensor& dst);

}  // namespace pypto_golden::sim
