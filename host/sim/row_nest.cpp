#include "sim/row_nest.h"

#include "sim/expressions.h"
#include "sim/located_error.h"
#include "sim/ops/fp32_row_tree.h"
#include "sim/ops/op_result.h"
#include "sim/task_windows.h"

#include <optional>
#include <utility>

namespace pypto_golden::sim {
namespace {

using ops::Fp32RowTree;
using ops::RowOperand;
using ops::RowRole;

const CallExpr* row_call(const Expr& e) {
  const auto* call = dynamic_cast<const CallExpr*>(&e);
  if (call == nullptr || call->op().row_role == RowRole::None || call->has_kwargs() || call->args().size() != 2)
    return nullptr;
  return call;
}

// Evaluating `e` writes no memory: it says so itself, or it calls an op whose result is new
// memory and that writes none of its arguments, on such arguments.
bool reads_only(const Expr& e) {
  if (e.writes_nothing()) return true;
  const auto* call = dynamic_cast<const CallExpr*>(&e);
  if (call == nullptr || call->has_kwargs() || call->op().result_views != 0 || call->op().writes_arg >= 0)
    return false;
  for (const auto& a : call->args())
    if (!reads_only(*a)) return false;
  return true;
}

bool nest_reads_only(const CallExpr& call) {
  for (const auto& a : call.args()) {
    const CallExpr* inner = row_call(*a);
    if (inner ? !nest_reads_only(*inner) : !reads_only(*a)) return false;
  }
  return true;
}

// What an operand of the nest became: node `node` of the row tree, or `value`.
struct Term {
  int node = -1;
  Value value;
};

class Nest {
 public:
  explicit Nest(Frame& frame) : frame_(frame) {}

  Term operand(const Expr& e) {
    if (const CallExpr* call = row_call(e)) return gather(*call);
    Term t;
    t.value = e.eval(frame_);
    // A plain variable is read whole (as CallExpr's arguments are).
    if (t.value.is_tensor() && dynamic_cast<const VarExpr*>(&e) != nullptr) note_read(t.value.tensor, {}, {});
    return t;
  }

  // The call as a node of the tree when its operands fit, else its op run as usual.
  Term gather(const CallExpr& call) {
    return run_at_line(frame_, call.line(), [&] { return gather_here(call); });
  }

  Term gather_here(const CallExpr& call) {
    Term l = operand(*call.args()[0]);
    Term r = operand(*call.args()[1]);
    Term t;
    t.node = join(call, l, r);
    if (t.node < 0) t.value = run_op(call.op(), args_of(call, std::move(l), std::move(r)));
    return t;
  }

  // Adds the node `call`(l, r), returning its index, or -1.
  int join(const CallExpr& call, const Term& l, const Term& r) {
    const std::optional<RowOperand> lhs = row_operand(l), rhs = row_operand(r);
    if (!lhs || !rhs) return -1;
    return tree_.add(call.op().row_arith, call.op().row_role, *lhs, *rhs);
  }

  OpArgs args_of(const CallExpr& call, Term l, Term r) {
    OpArgs args;
    args.op = call.op().name.c_str();
    args.device = frame_.device;
    args.positional.reserve(2);
    args.positional.push_back(value(std::move(l)));
    args.positional.push_back(value(std::move(r)));
    return args;
  }

  Value value(Term t) {
    if (t.node < 0) return std::move(t.value);
    OpArgs where;
    where.device = frame_.device;
    at::Tensor out = ops::new_tensor(where, {tree_.rows(), tree_.cols()}, at::kFloat);
    tree_.run(t.node, out);
    return Value::from_tensor(std::move(out));
  }

  const Fp32RowTree& tree() const { return tree_; }

 private:
  // Fully valid tiles and plain numbers only: a valid region, or a bool, keeps the op's own
  // handling.
  static std::optional<RowOperand> row_operand(const Term& t) {
    if (t.node >= 0) return RowOperand::of_node(t.node);
    const Value& v = t.value;
    if (v.is_tensor()) return v.fully_valid() ? std::optional<RowOperand>(RowOperand::of_tile(v.tensor)) : std::nullopt;
    if (v.kind == Value::Kind::Float) return RowOperand::of_scalar(static_cast<float>(v.f));
    if (v.kind == Value::Kind::Int) return RowOperand::of_scalar(static_cast<float>(static_cast<double>(v.i)));
    return std::nullopt;
  }

  Frame& frame_;
  Fp32RowTree tree_;
};

}  // namespace

bool heads_row_nest(const CallExpr& call) {
  if (row_call(call) == nullptr) return false;
  const bool nested = row_call(*call.args()[0]) != nullptr || row_call(*call.args()[1]) != nullptr;
  return nested && nest_reads_only(call);
}

Value eval_row_nest(const CallExpr& call, Frame& frame) {
  ops::NoAutograd guard;
  Nest nest(frame);
  return nest.value(nest.gather(call));
}

WrittenCorner eval_row_nest_into(const CallExpr& call, Frame& frame, const at::Tensor& dst) {
  ops::NoAutograd guard;
  Nest nest(frame);
  Term l = nest.operand(*call.args()[0]);
  Term r = nest.operand(*call.args()[1]);
  Term t;
  t.node = nest.join(call, l, r);
  if (t.node < 0) return run_op_into(call.op(), nest.args_of(call, std::move(l), std::move(r)), dst);
  if (nest.tree().may_write(t.node, dst)) {
    nest.tree().run(t.node, dst);
    return {};
  }
  return assign_into(nest.value(std::move(t)), dst);
}

}  // namespace pypto_golden::sim
