// Reductions and broadcasts. Reductions run over the full physical tile
// (the padding of a partial valid region participates, as on hardware) and keep the reduced
// axis as 1; row_expand_* takes a column vector [.., M, 1], col_expand_* a row vector [.., 1, N].
#include "sim/kernel_error.h"
#include "sim/ops/fp32_arith.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "tensor/python_repr.h"

namespace pypto_golden::sim {
namespace {

using ops::Dest;

enum class Red { Sum, Max, Min };

// The input of a row (last axis) or column (second to last) reduction, checked, and the
// reduced result's shape and valid region (the reduced axis kept as 1).
struct Reduction {
  const Value& input;
  int64_t axis;
  std::vector<int64_t> shape, valid;
};

Reduction reduction(const OpArgs& a, bool row) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  ops::check_vector_dtype(a.op, x, "input");
  ops::check_rank_at_least(a.op, x, "input", row ? 1 : 2);
  if (x.scalar_type() == at::kBool) throw KernelError(std::string("pl.") + a.op + ": input must not be bool");
  Reduction r{x_v, row ? x.dim() - 1 : x.dim() - 2, x.sizes().vec(), {}};
  r.shape[static_cast<size_t>(r.axis)] = 1;
  if (!x_v.fully_valid()) {
    r.valid = x_v.valid;
    r.valid[static_cast<size_t>(r.axis)] = 1;
  }
  return r;
}

template <Red OP, bool ROW>
Value reduce(const OpArgs& a, Dest& d) {
  Reduction r = reduction(a, ROW);
  const at::Tensor& x = r.input.tensor;
  const int64_t axis = r.axis;
  at::Tensor out = d.out(r.shape, x.scalar_type(), {x}, false, r.valid.empty());
  switch (OP) {
    case Red::Sum: at::sum_out(out, x, {axis}, true, x.scalar_type()); break;
    case Red::Max: at::amax_out(out, x, {axis}, true); break;
    case Red::Min: at::amin_out(out, x, {axis}, true); break;
  }
  return Value::from_tensor(out, std::move(r.valid));
}

// row_argmax / row_argmin / col_argmax / col_argmin: the INT32 index of the first maximum
// (minimum) along the reduced axis, over the physical tile like the other reductions.
template <bool MAX, bool ROW>
Value arg_reduce(const OpArgs& a, Dest& d) {
  Reduction r = reduction(a, ROW);
  const at::Tensor& x = r.input.tensor;
  const char* name = a.op;
  if (const Value* tmp = a.optional(1, "tmp_tile")) {
    const at::Tensor& t = a.as_tensor(*tmp, "tmp_tile").tensor;
    if (!t.sizes().equals(x.sizes()) || t.scalar_type() != x.scalar_type())
      throw KernelError(std::string("pl.") + name + ": tmp_tile must have the input's shape and dtype (" +
                        python_shape_repr(x.sizes()) + " " + ops::dtype_str(x.scalar_type()) + "), got " +
                        python_shape_repr(t.sizes()) + " " + ops::dtype_str(t.scalar_type()));
  }
  at::Tensor out = d.out(r.shape, at::kInt, {x}, false, r.valid.empty());
  // torch's argmax / argmin return the first extremum; a NaN counts as the extremum.
  out.copy_(MAX ? at::argmax(x, r.axis, true) : at::argmin(x, r.axis, true));
  return Value::from_tensor(out, std::move(r.valid));
}

enum class Ex { Add, Sub, Mul, Div, Max, Min, ExpDif, Plain };

template <Ex OP, bool ROW>
Value expand(const OpArgs& a, Dest& d) {
  const char* name = a.op;
  const Value& t_v = a.tensor(0, "lhs");
  const Value& v_v = a.tensor(1, "rhs");
  const at::Tensor& t = t_v.tensor;
  const at::Tensor& v = v_v.tensor;
  ops::check_vector_dtype(name, t, "lhs");
  ops::check_rank_at_least(name, t, "lhs", 2);
  ops::check_same_dtype(name, t, "lhs", v, "rhs");
  // rhs, as PyPTO's row/col_expand deducers take it: at least 2-D, 1 on the broadcast axis and
  // lhs's extent on the other of the last two; its leading axes (it may have fewer) broadcast.
  const int64_t bcast = ROW ? t.dim() - 1 : t.dim() - 2;
  const int64_t lead = t.dim() - v.dim();
  bool ok = v.dim() >= 2 && lead >= 0 && v.size(bcast - lead) == 1;
  for (int64_t k = 0; ok && k < v.dim(); ++k) {
    const int64_t tk = k + lead;
    ok = tk == bcast || v.size(k) == t.size(tk) || (tk < t.dim() - 2 && v.size(k) == 1);
  }
  if (!ok) {
    std::vector<int64_t> want = t.sizes().vec();
    want[static_cast<size_t>(bcast)] = 1;
    throw KernelError(std::string("pl.") + name + ": rhs must have shape " + python_shape_repr(want) + " (" +
                      (ROW ? "one value per row" : "one value per column") + ") for lhs " +
                      python_shape_repr(t.sizes()) + ", got " + python_shape_repr(v.sizes()));
  }
  if (OP != Ex::Plain && t.scalar_type() == at::kBool)
    throw KernelError(std::string("pl.") + name + ": operands must not be bool");
  if (OP == Ex::ExpDif) ops::check_float(name, t, "lhs");
  at::Tensor out = d.out(t.sizes(), t.scalar_type(), {t, v}, true, t_v.fully_valid());
  if (OP == Ex::Add || OP == Ex::Sub || OP == Ex::Mul || OP == Ex::Div) {
    if (ops::expand_fp32(ops::fp32_arith_of<Ex, OP>(), ROW, out, t, v)) return Value::from_tensor(out, t_v.valid);
  }
  switch (OP) {
    case Ex::Add: at::add_out(out, t, v); break;
    case Ex::Sub: at::sub_out(out, t, v); break;
    case Ex::Mul: at::mul_out(out, t, v); break;
    case Ex::Div:
      if (at::isFloatingType(t.scalar_type())) at::div_out(out, t, v);
      else at::div_out(out, t, v, "trunc");
      break;
    case Ex::Max: at::maximum_out(out, t, v); break;
    case Ex::Min: at::minimum_out(out, t, v); break;
    case Ex::ExpDif:
      at::sub_out(out, t, v);
      out.exp_();
      break;
    case Ex::Plain: out.copy_(v.expand(t.sizes())); break;
  }
  return Value::from_tensor(out, t_v.valid);
}

// row/col_expand_{add,sub,mul,div}: ops the fused row evaluator may run (sim/row_nest.h).
template <Ex OP, bool ROW>
OpDef expand_arith(const char* name, int max_args) {
  return row_fusable(fresh_result(ops::op_def<expand<OP, ROW>>(name, 2, max_args)),
                     ROW ? ops::RowRole::PerRow : ops::RowRole::PerCol, ops::fp32_arith_of<Ex, OP>());
}

}  // namespace

void register_reduction_ops(OpTable& t) {
  t.add(fresh_result(ops::op_def<reduce<Red::Sum, true>>("row_sum", 1, 2)));
  t.add(fresh_result(ops::op_def<reduce<Red::Max, true>>("row_max", 1, 2)));
  t.add(fresh_result(ops::op_def<reduce<Red::Min, true>>("row_min", 1, 2)));
  t.add(fresh_result(ops::op_def<reduce<Red::Sum, false>>("col_sum", 1, 2)));
  t.add(fresh_result(ops::op_def<reduce<Red::Max, false>>("col_max", 1, 1)));
  t.add(fresh_result(ops::op_def<reduce<Red::Min, false>>("col_min", 1, 1)));
  t.add(fresh_result(ops::op_def<arg_reduce<true, true>>("row_argmax", 1, 2)));
  t.add(fresh_result(ops::op_def<arg_reduce<false, true>>("row_argmin", 1, 2)));
  t.add(fresh_result(ops::op_def<arg_reduce<true, false>>("col_argmax", 1, 2)));
  t.add(fresh_result(ops::op_def<arg_reduce<false, false>>("col_argmin", 1, 2)));
  t.add(expand_arith<Ex::Add, true>("row_expand_add", 3));
  t.add(expand_arith<Ex::Sub, true>("row_expand_sub", 2));
  t.add(expand_arith<Ex::Mul, true>("row_expand_mul", 2));
  t.add(expand_arith<Ex::Div, true>("row_expand_div", 2));
  t.add(fresh_result(ops::op_def<expand<Ex::Max, true>>("row_expand_max", 2, 2)));
  t.add(fresh_result(ops::op_def<expand<Ex::Min, true>>("row_expand_min", 2, 2)));
  t.add(fresh_result(ops::op_def<expand<Ex::ExpDif, true>>("row_expand_expdif", 2, 2)));
  t.add(fresh_result(ops::op_def<expand<Ex::Plain, true>>("row_expand", 2, 2)));
  t.add(expand_arith<Ex::Add, false>("col_expand_add", 2));
  t.add(expand_arith<Ex::Sub, false>("col_expand_sub", 2));
  t.add(expand_arith<Ex::Mul, false>("col_expand_mul", 2));
  t.add(expand_arith<Ex::Div, false>("col_expand_div", 2));
  t.add(fresh_result(ops::op_def<expand<Ex::Max, false>>("col_expand_max", 2, 2)));
  t.add(fresh_result(ops::op_def<expand<Ex::Min, false>>("col_expand_min", 2, 2)));
  t.add(fresh_result(ops::op_def<expand<Ex::ExpDif, false>>("col_expand_expdif", 2, 2)));
  t.add(fresh_result(ops::op_def<expand<Ex::Plain, false>>("col_expand", 2, 2)));
}

}  // namespace pypto_golden::sim
