#include "sim/expressions.h"

#include "sim/finite_check.h"
#include "sim/kernel_error.h"
#include "sim/located_error.h"
#include "sim/row_nest.h"
#include "sim/task_windows.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <cmath>
#include <optional>

namespace pypto_golden::sim {

WrittenCorner Expr::eval_into(Frame& frame, const at::Tensor& dst) const { return assign_into(eval(frame), dst); }

WrittenCorner assign_into(const Value& v, const at::Tensor& dst) { return assign_value(v, dst); }

Value run_op(const OpDef& op, const OpArgs& args) {
  Value v = op.fn(args);
  if (finite_check_on(args)) check_finite_result(args, v);
  return v;
}

WrittenCorner run_op_into(const OpDef& op, const OpArgs& args, const at::Tensor& dst) {
  if (op.into) {
    WrittenCorner written = op.into(args, dst);
    if (finite_check_on(args)) check_finite_result(args, Value::from_tensor(dst));
    return written;
  }
  return assign_into(run_op(op, args), dst);
}

Value VarExpr::eval(Frame& frame) const {
  const Value& v = frame.slots[static_cast<size_t>(slot_)];
  if (v.kind == Value::Kind::None)
    throw KernelError("'" + frame.function->slot_names[static_cast<size_t>(slot_)] +
                      "' is used before it is assigned");
  return v;
}

bool VarExpr::try_int(Frame& frame, int64_t& out) const {
  const Value& v = frame.slots[static_cast<size_t>(slot_)];
  if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Bool) return false;
  out = v.i;
  return true;
}

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Integer +, -, *, // and % as Python computes them (floor rounding), wrapping at 64 bits;
// nullopt for another operator or a division by zero.
std::optional<int64_t> integer_arith(BinOp op, int64_t x, int64_t y) {
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (op) {
    case BinOp::Add: return static_cast<int64_t>(ux + uy);
    case BinOp::Sub: return static_cast<int64_t>(ux - uy);
    case BinOp::Mul: return static_cast<int64_t>(ux * uy);
    case BinOp::FloorDiv: return y == 0 ? std::nullopt : std::optional<int64_t>(floor_div(x, y));
    case BinOp::Mod: return y == 0 ? std::nullopt : std::optional<int64_t>(x - floor_div(x, y) * y);
    default: return std::nullopt;
  }
}

Value scalar_binop(BinOp op, const std::string& symbol, const Value& a, const Value& b) {
  if (!a.is_scalar() || !b.is_scalar())
    throw KernelError("operator '" + symbol + "' needs two scalars, got " + a.describe() + " and " +
                      b.describe());
  switch (op) {
    case BinOp::And: return Value::from_bool(a.truthy("'and'") && b.truthy("'and'"));
    case BinOp::Or: return Value::from_bool(a.truthy("'or'") || b.truthy("'or'"));
    default: break;
  }
  bool is_float = a.kind == Value::Kind::Float || b.kind == Value::Kind::Float;
  if (!is_float && op != BinOp::TrueDiv) {
    int64_t x = a.i, y = b.i;
    c10::ScalarType t = (a.stype == c10::kLong || b.stype == c10::kLong) ? c10::kLong : a.stype;
    if (t == c10::kBool) t = c10::kLong;
    switch (op) {
      case BinOp::Add:
      case BinOp::Sub:
      case BinOp::Mul:
      case BinOp::FloorDiv:
      case BinOp::Mod:
        if (std::optional<int64_t> r = integer_arith(op, x, y)) return Value::from_int(*r, t);
        throw KernelError("integer division by zero in '" + symbol + "'");
      case BinOp::Eq: return Value::from_bool(x == y);
      case BinOp::Ne: return Value::from_bool(x != y);
      case BinOp::Lt: return Value::from_bool(x < y);
      case BinOp::Le: return Value::from_bool(x <= y);
      case BinOp::Gt: return Value::from_bool(x > y);
      case BinOp::Ge: return Value::from_bool(x >= y);
      default: break;
    }
  }
  double x = a.as_double("operand"), y = b.as_double("operand");
  c10::ScalarType t = a.kind == Value::Kind::Float ? a.stype
                      : b.kind == Value::Kind::Float ? b.stype : c10::kFloat;
  switch (op) {
    case BinOp::Add: return Value::from_float(x + y, t);
    case BinOp::Sub: return Value::from_float(x - y, t);
    case BinOp::Mul: return Value::from_float(x * y, t);
    case BinOp::TrueDiv:
      if (y == 0.0 && !is_float) throw KernelError("division by zero in '" + symbol + "'");
      return Value::from_float(x / y, t);
    case BinOp::FloorDiv:
      if (y == 0.0) throw KernelError("float floor division by zero in '" + symbol + "'");
      return Value::from_float(std::floor(x / y), t);
    case BinOp::Mod:
      if (y == 0.0) throw KernelError("float modulo by zero in '" + symbol + "'");
      return Value::from_float(x - std::floor(x / y) * y, t);
    case BinOp::Eq: return Value::from_bool(x == y);
    case BinOp::Ne: return Value::from_bool(x != y);
    case BinOp::Lt: return Value::from_bool(x < y);
    case BinOp::Le: return Value::from_bool(x <= y);
    case BinOp::Gt: return Value::from_bool(x > y);
    case BinOp::Ge: return Value::from_bool(x >= y);
    default: break;
  }
  throw KernelError("unsupported scalar operator '" + symbol + "'");
}

// The one element of a 0-d view as a scalar value, read in place (Tensor::item goes through
// the dispatcher, a noticeable cost for scalar reads inside loops).
Value element_value(const at::Tensor& e) {
  const c10::ScalarType st = e.scalar_type();
  const void* p = e.const_data_ptr();
  switch (st) {
    case at::kFloat: return Value::from_float(*static_cast<const float*>(p), st);
    case at::kDouble: return Value::from_float(*static_cast<const double*>(p), st);
    case at::kHalf: return Value::from_float(static_cast<float>(*static_cast<const c10::Half*>(p)), st);
    case at::kBFloat16: return Value::from_float(static_cast<float>(*static_cast<const c10::BFloat16*>(p)), st);
    case at::kBool: return Value::from_bool(*static_cast<const bool*>(p));
    case at::kByte: return Value::from_int(*static_cast<const uint8_t*>(p), st);
    case at::kChar: return Value::from_int(*static_cast<const int8_t*>(p), st);
    case at::kShort: return Value::from_int(*static_cast<const int16_t*>(p), st);
    case at::kInt: return Value::from_int(*static_cast<const int32_t*>(p), st);
    case at::kLong: return Value::from_int(*static_cast<const int64_t*>(p), st);
    default:
      if (at::isFloatingType(st)) return Value::from_float(e.item<double>(), st);
      return Value::from_int(e.item<int64_t>(), st);
  }
}

}  // namespace

// scalar_binop's integer arithmetic (integer_arith) on two integer (or bool) operands; a
// comparison, and a division by zero, are left to eval.
bool BinOpExpr::try_int(Frame& frame, int64_t& out) const {
  int64_t x = 0, y = 0;
  if (!lhs_->try_int(frame, x) || !rhs_->try_int(frame, y)) return false;
  const std::optional<int64_t> r = integer_arith(op_, x, y);
  if (!r) return false;
  out = *r;
  return true;
}

Value BinOpExpr::eval(Frame& frame) const {
  Value a = lhs_->eval(frame);
  // and / or short-circuit as in Python (`i < n and pl.read(x, [i]) > 0` never reads x[n]);
  // the result is a BOOL, as PyPTO's And / Or expressions are.
  if ((op_ == BinOp::And || op_ == BinOp::Or) && a.is_scalar()) {
    const bool lhs = a.truthy(op_ == BinOp::And ? "'and'" : "'or'");
    if (lhs == (op_ == BinOp::Or)) return Value::from_bool(lhs);
  }
  Value b = rhs_->eval(frame);
  if (a.is_tensor()) {
    if (!tensor_op_)
      throw KernelError("operator '" + symbol_ + "' is not supported on tensors by this simulator");
    OpArgs args;
    args.op = tensor_op_->name.c_str();
    args.device = frame.device;
    args.positional.push_back(std::move(a));
    args.positional.push_back(std::move(b));
    return run_op(*tensor_op_, args);
  }
  if (b.is_tensor())
    throw KernelError("operator '" + symbol_ + "' with a scalar on the left and a tensor on the right; "
                      "put the tensor first (pl ops take the tensor as lhs)");
  return scalar_binop(op_, symbol_, a, b);
}

Value UnaryExpr::eval(Frame& frame) const {
  Value v = operand_->eval(frame);
  if (is_not_) return Value::from_bool(!v.truthy("the operand of 'not'"));
  if (v.kind == Value::Kind::Float) return Value::from_float(-v.f, v.stype);
  if (v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool) return Value::from_int(-v.i, v.stype == c10::kBool ? c10::kLong : v.stype);
  if (v.is_tensor()) {
    // Through the op table, so dtype checks and valid regions apply as for pl.neg.
    OpArgs args;
    args.op = neg_op_->name.c_str();
    args.device = frame.device;
    args.positional.push_back(std::move(v));
    return run_op(*neg_op_, args);
  }
  throw KernelError("unary '-' needs a scalar or a tensor, got " + v.describe());
}

SubscriptExpr::SubscriptExpr(ExprPtr base, std::vector<IndexItem> items, std::string text)
    : base_(std::move(base)), items_(std::move(items)), text_(std::move(text)) {
  if (const auto* var = dynamic_cast<const VarExpr*>(base_.get())) base_slot_ = var->slot();
}

bool SubscriptExpr::writes_nothing() const {
  if (!base_->writes_nothing()) return false;
  for (const IndexItem& item : items_)
    for (const ExprPtr* e : {&item.lo, &item.hi, &item.index})
      if (*e && !(*e)->writes_nothing()) return false;
  return true;
}

Value SubscriptExpr::eval(Frame& frame) const {
  // A variable's value is not copied: the copy's reference count would be written on the
  // tensor that the device's threads all read (x[...] in each task), a cache line they
  // would pass back and forth.
  Value copy;
  const bool in_place = base_slot_ >= 0 && frame.slots[static_cast<size_t>(base_slot_)].kind != Value::Kind::None;
  const Value& base = in_place ? frame.slots[static_cast<size_t>(base_slot_)] : (copy = base_->eval(frame));
  if (!base.is_tensor()) base.as_tensor(("the base of " + text_).c_str());  // throws, naming it
  Window w = resolve_window(base, items_, frame, text_);
  note_read(w.view, {}, {});
  if (w.all_indexed) return element_value(w.view);
  return std::move(w).value(frame.device);
}

CallExpr::CallExpr(const OpDef* op, std::vector<ExprPtr> args, std::vector<std::pair<std::string, ExprPtr>> kwargs)
    : op_(op), args_(std::move(args)), kwargs_(std::move(kwargs)) {
  // A window expression (x[...], a call's result) is recorded where it is made; a plain
  // variable handed to an op is the whole of its tensor.
  for (size_t k = 0; k < args_.size() && k < 32; ++k)
    if (dynamic_cast<const VarExpr*>(args_[k].get()) && !(op_->windowed_args >> k & 1u)) whole_args_ |= 1u << k;
  row_nest_ = heads_row_nest(*this);
  // On the hardware a load copies into the core's buffer; a copy made here would be read
  // once and dropped. The op must neither keep a view of it (result_views) nor write in
  // place, and no other argument may write what the view sees before the op reads it.
  if (op_->result_views == OpDef::kAnyArg || op_->writes_arg >= 0 || args_.size() > 32) return;
  bool others_write = false;
  for (const auto& a : args_) others_write = others_write || !a->writes_nothing();
  for (const auto& kv : kwargs_) others_write = others_write || !kv.second->writes_nothing();
  if (others_write) return;
  for (size_t k = 0; k < args_.size(); ++k)
    if (auto* load = dynamic_cast<CallExpr*>(args_[k].get());
        load != nullptr && load->op_->name == "load" && !(op_->result_views >> k & 1u))
      load->transient_ = true;
}

bool CallExpr::writes_nothing() const {
  // A load, or a shape query (pl.tensor.dim: a window's extent in a load's offsets).
  if (op_->name != "load" && op_->name != "dim") return false;
  for (const auto& a : args_)
    if (!a->writes_nothing()) return false;
  for (const auto& kv : kwargs_)
    if (!kv.second->writes_nothing()) return false;
  return true;
}

OpArgs CallExpr::evaluate_args(Frame& frame) const {
  OpArgs args;
  args.op = op_->name.c_str();
  args.device = frame.device;
  args.transient = transient_;
  args.positional.reserve(args_.size());
  for (const auto& a : args_) args.positional.push_back(a->eval(frame));
  for (const auto& kv : kwargs_) args.keywords.emplace_back(kv.first, kv.second->eval(frame));
  for (uint32_t whole = whole_args_, k = 0; whole; whole >>= 1, ++k) {
    const Value& v = args.positional[k];
    if (!(whole & 1u) || v.kind != Value::Kind::Tensor) continue;
    note_read(v.tensor, {}, {});
    if (static_cast<int>(k) == op_->writes_arg) note_write(v.tensor, {}, {});  // in place: pl.matmul_acc's acc
  }
  return args;
}

Value CallExpr::eval(Frame& frame) const {
  return run_at_line(frame, line_, [&] { return eval_here(frame); });
}

WrittenCorner CallExpr::eval_into(Frame& frame, const at::Tensor& dst) const {
  return run_at_line(frame, line_, [&] { return eval_into_here(frame, dst); });
}

Value CallExpr::eval_here(Frame& frame) const {
  // Under PYPTO_SIM_NAN_CHECK each op's own result is checked: the calls run one by one.
  if (row_nest_ && !finite_check_on(frame.device)) return eval_row_nest(*this, frame);
  return run_op(*op_, evaluate_args(frame));
}

WrittenCorner CallExpr::eval_into_here(Frame& frame, const at::Tensor& dst) const {
  if (row_nest_ && !finite_check_on(frame.device)) return eval_row_nest_into(*this, frame, dst);
  return run_op_into(*op_, evaluate_args(frame), dst);
}

bool SequenceExpr::writes_nothing() const {
  for (const auto& e : items_)
    if (!e->writes_nothing()) return false;
  return true;
}

Value SequenceExpr::eval(Frame& frame) const {
  std::vector<Value> items;
  items.reserve(items_.size());
  for (const auto& e : items_) items.push_back(e->eval(frame));
  return is_tuple_ ? Value::tuple(std::move(items)) : Value::list(std::move(items));
}

}  // namespace pypto_golden::sim
