// Scalar-level ops: pl.min / pl.max of two scalars, pl.read /
// pl.write of one tensor element, pl.tensor.dim (runtime extent). pl.cast of a scalar is in
// cast.cpp.
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "sim/task_windows.h"
#include "tensor/python_repr.h"

#include <cmath>

namespace pypto_golden::sim {
namespace {

template <bool MAX>
Value scalar_minmax(const OpArgs& a) {
  const char* name = MAX ? "max" : "min";
  const Value& x = a.required(0, "lhs");
  const Value& y = a.required(1, "rhs");
  if (!x.is_scalar() || !y.is_scalar())
    throw KernelError(std::string("pl.") + name + " takes two scalars (for tensors use pl." +
                      (MAX ? "maximum" : "minimum") + " or pl.row_" + name + "), got " + x.describe() + " and " +
                      y.describe());
  if (x.kind != Value::Kind::Float && y.kind != Value::Kind::Float) {
    const c10::ScalarType t = x.stype == y.stype && x.stype != at::kBool ? x.stype : at::kLong;
    return Value::from_int(MAX ? std::max(x.i, y.i) : std::min(x.i, y.i), t);
  }
  const double u = x.as_double(name), v = y.as_double(name);
  const c10::ScalarType t = x.kind == Value::Kind::Float ? x.stype : y.stype;
  if (std::isnan(u) || std::isnan(v)) return Value::from_float(NAN, t);
  return Value::from_float(MAX ? std::max(u, v) : std::min(u, v), t);
}

// The element of `t` at `offset`: one index per axis, or a single flat row-major offset.
at::Tensor element(const OpArgs& a, const at::Tensor& t, const Value& offset) {
  std::vector<int64_t> idx = a.as_int_list(offset, "offset");
  if (idx.size() == 1 && t.dim() != 1) {  // flat row-major offset
    const int64_t flat = idx[0];
    if (flat < 0 || flat >= t.numel())
      throw KernelError(std::string("pl.") + a.op + ": flat offset " + std::to_string(flat) + " is outside the tensor of " +
                        std::to_string(t.numel()) + " elements (shape " + python_shape_repr(t.sizes()) + ")");
    idx.assign(static_cast<size_t>(t.dim()), 0);
    int64_t rest = flat;
    for (int64_t k = t.dim() - 1; k >= 0; --k) {
      idx[static_cast<size_t>(k)] = rest % t.size(k);
      rest /= t.size(k);
    }
  }
  if (static_cast<int64_t>(idx.size()) != t.dim())
    throw KernelError(std::string("pl.") + a.op + ": " + std::to_string(idx.size()) + " indices for a tensor of rank " +
                      std::to_string(t.dim()) + " (shape " + python_shape_repr(t.sizes()) + ")");
  at::Tensor e = t;
  for (size_t k = 0; k < idx.size(); ++k) {
    const int64_t extent = t.size(static_cast<int64_t>(k));
    if (idx[k] < 0 || idx[k] >= extent)
      throw KernelError(std::string("pl.") + a.op + ": index " + python_list_repr(idx) + " is outside the tensor: axis " +
                        std::to_string(k) + " has extent " + std::to_string(extent) + " (shape " +
                        python_shape_repr(t.sizes()) + ")");
    e = e.select(0, idx[k]);
  }
  return e;
}

// pl.read(src, offset) -> scalar of the element dtype.
Value read(const OpArgs& a) {
  const at::Tensor& t = a.tensor(0, "src").tensor;
  at::Tensor e = element(a, t, a.required(1, "offset"));
  note_read(e, {}, {});
  const c10::ScalarType st = t.scalar_type();
  if (at::isFloatingType(st)) return Value::from_float(e.item<double>(), st);
  if (st == at::kBool) return Value::from_bool(e.item<bool>());
  return Value::from_int(e.item<int64_t>(), st);
}

// pl.write(dst, offset, value): stores one element in place.
Value write(const OpArgs& a) {
  const at::Tensor& t = a.tensor(0, "dst").tensor;
  at::Tensor e = element(a, t, a.required(1, "offset"));
  const Value& v = a.required(2, "value");
  if (!v.is_scalar()) throw KernelError("pl.write: value must be a scalar, got " + v.describe());
  const c10::ScalarType st = t.scalar_type();
  if (v.kind == Value::Kind::Float && !at::isFloatingType(st))
    throw KernelError("pl.write: cannot store " + v.describe() + " into a " + ops::dtype_str(st) +
                      " tensor; convert it with pl.cast first");
  if (st == at::kBool) e.fill_(v.truthy("pl.write's value"));
  else if (v.kind == Value::Kind::Float) e.fill_(v.f);
  else if (at::isFloatingType(st)) e.fill_(static_cast<double>(v.i));
  else e.fill_(v.i);
  note_write(e, {}, {});
  return Value::none();
}

// pl.tensor.dim(x, axis) -> INT64 extent (negative axes count from the end).
Value dim(const OpArgs& a) {
  const at::Tensor& t = a.tensor(0, "input").tensor;
  int64_t axis = a.as_int(a.required(1, "axis"), "axis");
  const int64_t rank = t.dim();
  if (axis < -rank || axis >= rank)
    throw KernelError("pl.tensor.dim: axis " + std::to_string(axis) + " is out of range for shape " +
                      python_shape_repr(t.sizes()));
  if (axis < 0) axis += rank;
  return Value::from_int(t.size(axis), at::kLong);
}

}  // namespace

void register_scalar_ops(OpTable& t) {
  t.add(fresh_result(OpDef{"min", 2, 2, {}, &ops::guarded<scalar_minmax<false>>, nullptr}));
  t.add(fresh_result(OpDef{"max", 2, 2, {}, &ops::guarded<scalar_minmax<true>>, nullptr}));
  t.add(fresh_result(OpDef{"read", 2, 2, {}, &ops::guarded<read>, nullptr, -1, 1u << 0}));
  t.add(OpDef{"write", 3, 3, {}, &ops::guarded<write>, nullptr, 0, 1u << 0});
  t.add(fresh_result(OpDef{"dim", 2, 2, {}, &ops::guarded<dim>, nullptr, -1, 1u << 0}));
}

}  // namespace pypto_golden::sim
