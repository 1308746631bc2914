// Elementwise ops. Results keep the dtype of the first (tensor) operand:
// the hardware has no implicit promotion, so mixed dtypes are a kernel error rather than a
// silent upcast. A scalar right-hand side selects the scalar form (adds, muls, ...).
#include "sim/kernel_error.h"
#include "sim/ops/fp32_arith.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "tensor/python_repr.h"

#include <ATen/OpMathType.h>
#include <ATen/ScalarOps.h>

#include <cmath>
#include <limits>

namespace pypto_golden::sim {
namespace {

using ops::Dest;

enum class Bin { Add, Sub, Mul, Div, Max, Min };

c10::Scalar scalar_operand(const char* op, const at::Tensor& lhs, const Value& rhs) {
  bool lhs_float = at::isFloatingType(lhs.scalar_type());
  if (rhs.kind == Value::Kind::Float) {
    if (!lhs_float)
      throw KernelError(std::string("pl.") + op + ": cannot combine a " + ops::dtype_str(lhs.scalar_type()) +
                        " tensor with a float scalar; cast one side with pl.cast");
    return c10::Scalar(rhs.f);
  }
  if (lhs_float) return c10::Scalar(static_cast<double>(rhs.i));
  return c10::Scalar(rhs.i);
}

// The scalar as the 0-dim operand of a tensor op, in the type the op computes in for `lhs`
// (float for fp32 / bf16 / fp16): the value the op would convert it to anyway, but a double
// operand sends ATen through a slower mixed-type loop (~2 us more per 32 Ki-element tile).
at::Tensor scalar_tensor_operand(const at::Tensor& lhs, const c10::Scalar& s) {
  if (s.isFloatingPoint() && at::toOpMathType(lhs.scalar_type()) == at::kFloat) {
    at::Tensor t = at::detail::scalar_tensor_static(c10::Scalar(static_cast<double>(static_cast<float>(s.toDouble()))),
                                                    at::kFloat, at::kCPU);
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
  }
  return c10::scalar_to_tensor(s);
}

// Two scalars: plain scalar arithmetic in the wider of the two (int64 / fp32 literals).
Value scalar_binary(Bin op, const char* name, const Value& a, const Value& b) {
  bool is_float = a.kind == Value::Kind::Float || b.kind == Value::Kind::Float;
  if (!is_float && op != Bin::Div) {
    int64_t x = a.i, y = b.i;
    c10::ScalarType t = a.stype == b.stype && a.stype != at::kBool ? a.stype : at::kLong;
    switch (op) {
      case Bin::Add: return Value::from_int(static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y)), t);
      case Bin::Sub: return Value::from_int(static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y)), t);
      case Bin::Mul: return Value::from_int(static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)), t);
      case Bin::Max: return Value::from_int(std::max(x, y), t);
      case Bin::Min: return Value::from_int(std::min(x, y), t);
      default: break;
    }
  }
  double x = a.as_double(name), y = b.as_double(name);
  c10::ScalarType t = a.kind == Value::Kind::Float ? a.stype : b.kind == Value::Kind::Float ? b.stype : at::kFloat;
  switch (op) {
    case Bin::Add: return Value::from_float(x + y, t);
    case Bin::Sub: return Value::from_float(x - y, t);
    case Bin::Mul: return Value::from_float(x * y, t);
    case Bin::Div:
      if (y == 0.0 && !is_float) throw KernelError("pl.div: division by zero");
      return Value::from_float(x / y, t);
    case Bin::Max: return Value::from_float(std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y), t);
    case Bin::Min: return Value::from_float(std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y), t);
  }
  return Value::none();
}

void run_binary(Bin op, at::Tensor& out, const at::Tensor& l, const at::Tensor& r) {
  switch (op) {
    case Bin::Add: at::add_out(out, l, r); return;
    case Bin::Sub: at::sub_out(out, l, r); return;
    case Bin::Mul: at::mul_out(out, l, r); return;
    case Bin::Div:
      if (at::isFloatingType(l.scalar_type())) at::div_out(out, l, r);
      else at::div_out(out, l, r, "trunc");
      return;
    case Bin::Max: at::maximum_out(out, l, r); return;
    case Bin::Min: at::minimum_out(out, l, r); return;
  }
}

// FP32 add, sub, mul and div in one loop per row where the layouts allow (fp32_arith.h):
// whether it wrote `out`.
template <Bin OP>
bool fp32_loop(const at::Tensor& out, const at::Tensor& l, const at::Tensor* r, float s) {
  if constexpr (OP == Bin::Max || OP == Bin::Min) {
    return false;  // ATen's NaN and signed-zero rules; left to it
  } else {
    return ops::binary_fp32(ops::fp32_arith_of<Bin, OP>(), out, l, r, s);
  }
}

// FP32 maximum / minimum with a scalar in one loop per row (fp32_arith.h) for a bound a
// float holds: whether it wrote `out`. ATen's own handling stays for a NaN bound (it fills
// the result with NaN) and one past float's range.
bool clamp_loop(bool max, const at::Tensor& out, const at::Tensor& l, const c10::Scalar& s) {
  if (!s.isFloatingPoint()) return false;
  const double v = s.toDouble();
  if (std::isnan(v) || (std::isfinite(v) && std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max())))
    return false;
  return ops::clamp_fp32(max, out, l, static_cast<float>(v));
}

template <Bin OP>
Value binary(const OpArgs& a, Dest& d) {
  const char* name = a.op;
  const Value& lhs_v = a.required(0, "lhs");
  const Value& rhs = a.required(1, "rhs");
  if (lhs_v.is_scalar() && rhs.is_scalar()) return scalar_binary(OP, name, lhs_v, rhs);
  if (!lhs_v.is_tensor()) {
    if (rhs.is_tensor())
      throw KernelError(std::string("pl.") + name + ": the tensor must be the first argument (lhs), got " +
                        lhs_v.describe() + " and " + rhs.describe());
    throw KernelError(std::string("pl.") + name + ": lhs must be a tensor or a scalar, got " + lhs_v.describe());
  }
  const at::Tensor& lhs = lhs_v.tensor;
  ops::check_vector_dtype(name, lhs, "lhs");
  if (rhs.is_tensor()) {
    ops::check_same_dtype(name, lhs, "lhs", rhs.tensor, "rhs");
    std::vector<int64_t> shape;
    if (lhs.sizes().equals(rhs.tensor.sizes())) {
      shape = lhs.sizes().vec();
    } else {
      try {
        shape = at::infer_size(lhs.sizes(), rhs.tensor.sizes());
      } catch (const c10::Error&) {
        throw KernelError(std::string("pl.") + name + ": operand shapes " + python_shape_repr(lhs.sizes()) +
                          " and " + python_shape_repr(rhs.tensor.sizes()) + " do not match (nor broadcast)");
      }
    }
    std::vector<int64_t> valid = ops::merged_valid(lhs_v, &rhs);
    at::Tensor out = d.out(shape, lhs.scalar_type(), {lhs, rhs.tensor}, true, valid.empty());
    if (!fp32_loop<OP>(out, lhs, &rhs.tensor, 0.0f)) run_binary(OP, out, lhs, rhs.tensor);
    return Value::from_tensor(out, std::move(valid));
  }
  if (!rhs.is_scalar())
    throw KernelError(std::string("pl.") + name + ": rhs must be a tensor or a scalar, got " + rhs.describe());
  c10::Scalar s = scalar_operand(name, lhs, rhs);
  at::Tensor out = d.out(lhs.sizes(), lhs.scalar_type(), {lhs}, true, lhs_v.fully_valid());
  switch (OP) {
    case Bin::Max:
    case Bin::Min:
      if (!clamp_loop(OP == Bin::Max, out, lhs, s)) {
        if (OP == Bin::Max) at::clamp_min_out(out, lhs, s);
        else at::clamp_max_out(out, lhs, s);
      }
      break;
    default:
      // The scalar as the float the op computes in (scalar_tensor_operand's).
      if (s.isFloatingPoint() && fp32_loop<OP>(out, lhs, nullptr, static_cast<float>(s.toDouble()))) break;
      // A 0-dim wrapped-number operand promotes like a Python number: the math stays in lhs dtype.
      run_binary(OP, out, lhs, scalar_tensor_operand(lhs, s));
      break;
  }
  return Value::from_tensor(out, lhs_v.valid);
}

// pl.fmods(lhs, scalar): the remainder with the dividend's sign (C fmod, torch.fmod).
Value fmods(const OpArgs& a, Dest& d) {
  const Value& lhs_v = a.tensor(0, "lhs");
  const Value& rhs = a.required(1, "rhs");
  const at::Tensor& lhs = lhs_v.tensor;
  ops::check_vector_dtype("fmods", lhs, "lhs");
  if (lhs.scalar_type() == at::kBool) throw KernelError("pl.fmods: lhs must not be bool");
  if (!rhs.is_scalar()) throw KernelError("pl.fmods: rhs must be a scalar, got " + rhs.describe());
  const c10::Scalar s = scalar_operand("fmods", lhs, rhs);
  if (!at::isFloatingType(lhs.scalar_type()) && s.toLong() == 0) throw KernelError("pl.fmods: division by zero");
  at::Tensor out = d.out(lhs.sizes(), lhs.scalar_type(), {lhs}, true, lhs_v.fully_valid());
  at::fmod_out(out, lhs, s);
  return Value::from_tensor(out, lhs_v.valid);
}

enum class Un { Neg, Abs, Exp, Log, Sqrt, Rsqrt, Recip };

template <Un OP>
Value unary(const OpArgs& a, Dest& d) {
  const char* name = a.op;
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  ops::check_vector_dtype(name, x, "input");
  if (OP != Un::Neg && OP != Un::Abs) ops::check_float(name, x, "input");
  if (x.scalar_type() == at::kBool) throw KernelError(std::string("pl.") + name + ": input must not be bool");
  at::Tensor out = d.out(x.sizes(), x.scalar_type(), {x}, true, x_v.fully_valid());
  switch (OP) {
    case Un::Neg: at::neg_out(out, x); break;
    case Un::Abs: at::abs_out(out, x); break;
    case Un::Exp: at::exp_out(out, x); break;
    case Un::Log: at::log_out(out, x); break;
    case Un::Sqrt: at::sqrt_out(out, x); break;
    case Un::Rsqrt: at::rsqrt_out(out, x); break;
    case Un::Recip: at::reciprocal_out(out, x); break;
  }
  return Value::from_tensor(out, x_v.valid);
}

// pl.cmp(lhs, rhs, cmp_type=0): 0/1 in lhs's dtype; codes 0..5 = eq ne lt le gt ge (or a
// pl.CmpType member).
int cmp_code(const OpArgs& a, const Value* v) {
  if (!v) return 0;
  if (v->kind == Value::Kind::Int) {
    if (v->i < 0 || v->i > 5) throw KernelError("pl.cmp: cmp_type must be 0..5 (eq ne lt le gt ge), got " + std::to_string(v->i));
    return static_cast<int>(v->i);
  }
  std::string m = a.as_enum_member(*v, "CmpType");
  static const char* names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  for (int k = 0; k < 6; ++k) {
    std::string lower = names[k];
    for (auto& c : lower) c = static_cast<char>(std::tolower(c));
    if (m == names[k] || m == lower) return k;
  }
  throw KernelError("pl.cmp: cmp_type must be 0..5 or a pl.CmpType member (EQ NE LT LE GT GE), got " + m);
}

Value cmp(const OpArgs& a, Dest& d) {
  const Value& lhs_v = a.tensor(0, "lhs");
  const Value& rhs = a.required(1, "rhs");
  const int code = cmp_code(a, a.optional(2, "cmp_type"));
  const at::Tensor& lhs = lhs_v.tensor;
  ops::check_vector_dtype("cmp", lhs, "lhs");
  at::Tensor r;
  if (rhs.is_tensor()) {
    ops::check_same_dtype("cmp", lhs, "lhs", rhs.tensor, "rhs");
    if (!lhs.sizes().equals(rhs.tensor.sizes()))
      throw KernelError("pl.cmp: operand shapes " + python_shape_repr(lhs.sizes()) + " and " +
                        python_shape_repr(rhs.tensor.sizes()) + " differ");
    r = rhs.tensor;
  } else if (rhs.is_scalar()) {
    r = scalar_tensor_operand(lhs, scalar_operand("cmp", lhs, rhs));
  } else {
    throw KernelError("pl.cmp: rhs must be a tensor or a scalar, got " + rhs.describe());
  }
  at::Tensor out = d.out(lhs.sizes(), lhs.scalar_type(), {lhs, rhs.is_tensor() ? rhs.tensor : at::Tensor()}, true,
                         ops::merged_valid(lhs_v, &rhs).empty());
  switch (code) {
    case 0: at::eq_out(out, lhs, r); break;
    case 1: at::ne_out(out, lhs, r); break;
    case 2: at::lt_out(out, lhs, r); break;
    case 3: at::le_out(out, lhs, r); break;
    case 4: at::gt_out(out, lhs, r); break;
    default: at::ge_out(out, lhs, r); break;
  }
  return Value::from_tensor(out, ops::merged_valid(lhs_v, &rhs));
}

}  // namespace

void register_elementwise_ops(OpTable& t) {
  using ops::Fp32Arith;
  using ops::RowRole;
  t.add(row_fusable(fresh_result(ops::op_def<binary<Bin::Add>>("add", 2, 2)), RowRole::Elementwise, Fp32Arith::Add));
  t.add(row_fusable(fresh_result(ops::op_def<binary<Bin::Sub>>("sub", 2, 2)), RowRole::Elementwise, Fp32Arith::Sub));
  t.add(row_fusable(fresh_result(ops::op_def<binary<Bin::Mul>>("mul", 2, 2)), RowRole::Elementwise, Fp32Arith::Mul));
  t.add(row_fusable(fresh_result(ops::op_def<binary<Bin::Div>>("div", 2, 2, {"high_precision"})), RowRole::Elementwise,
                    Fp32Arith::Div));
  t.add(fresh_result(ops::op_def<fmods>("fmods", 2, 2)));
  t.add(fresh_result(ops::op_def<binary<Bin::Max>>("maximum", 2, 2)));
  t.add(fresh_result(ops::op_def<binary<Bin::Min>>("minimum", 2, 2)));
  t.add(fresh_result(ops::op_def<unary<Un::Neg>>("neg", 1, 1)));
  t.add(fresh_result(ops::op_def<unary<Un::Abs>>("abs", 1, 1)));
  t.add(fresh_result(ops::op_def<unary<Un::Exp>>("exp", 1, 1)));
  t.add(fresh_result(ops::op_def<unary<Un::Log>>("log", 1, 1, {"high_precision"})));
  t.add(fresh_result(ops::op_def<unary<Un::Sqrt>>("sqrt", 1, 1)));
  t.add(fresh_result(ops::op_def<unary<Un::Rsqrt>>("rsqrt", 1, 1, {"high_precision"})));
  t.add(fresh_result(ops::op_def<unary<Un::Recip>>("recip", 1, 1, {"high_precision"})));
  t.add(fresh_result(ops::op_def<cmp>("cmp", 2, 3)));
}

}  // namespace pypto_golden::sim
