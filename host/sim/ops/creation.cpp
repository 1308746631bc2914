// Creation ops: create_tensor, full (also pl.tile.full), create_tile, arange.
// Created tensors live in device memory.
#include "sim/device.h"
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "sim/task_ids.h"
#include "sim/task_recorder.h"
#include "tensor/python_repr.h"

#include <cmath>

namespace pypto_golden::sim {
namespace {

using ops::Dest;

std::vector<int64_t> shape_arg(const OpArgs& a, const Value& v) {
  std::vector<int64_t> shape = a.as_int_list(v, "shape");
  for (int64_t s : shape)
    if (s < 0) throw KernelError(std::string("pl.") + a.op + ": shape " + python_list_repr(shape) + " has a negative extent");
  return shape;
}

// A scalar fill value for a tensor of `dtype`: a float value for an integer tensor must be
// integral (no silent truncation).
c10::Scalar fill_value(const OpArgs& a, const Value& v, c10::ScalarType dtype, const char* name) {
  if (!v.is_scalar())
    throw KernelError(std::string("pl.") + a.op + ": " + name + " must be a scalar, got " + v.describe());
  if (dtype == at::kBool) return c10::Scalar(v.truthy(name));
  if (v.kind == Value::Kind::Float) {
    if (!at::isFloatingType(dtype)) {
      if (!std::isfinite(v.f) || v.f != std::floor(v.f))
        throw KernelError(std::string("pl.") + a.op + ": " + name + " " + v.describe() + " does not fit a " +
                          ops::dtype_str(dtype) + " tensor; use an integer value");
      return c10::Scalar(static_cast<int64_t>(v.f));
    }
    return c10::Scalar(v.f);
  }
  if (at::isFloatingType(dtype)) return c10::Scalar(static_cast<double>(v.i));
  return c10::Scalar(v.i);
}

Value create_tensor(const OpArgs& a, Dest& d) {
  std::vector<int64_t> shape = shape_arg(a, a.required(0, "shape"));
  c10::ScalarType dtype = a.as_dtype(a.required(1, "dtype"), "dtype");
  at::Tensor out = d.out(shape, dtype);
  // Uninitialised in PyPTO unless init_value is given; the simulator zeroes it (as PyPTO's
  // torch reference does) so results never depend on stale memory.
  const Value* init = a.option("init_value");
  if (init) out.fill_(fill_value(a, *init, dtype, "init_value"));
  else out.zero_();
  if (const Value* manual = a.option("manual_dep"); manual && a.as_bool(*manual, "manual_dep"))
    if (TaskRecorder* r = graph_recorder(a.device)) r->mark_manual_dep(out);
  return Value::from_tensor(out);
}

// pl.create_l1(shape, dtype, transpose=False): an on-chip accumulator for pl.gather_row.
// Zeroed like create_tensor, so an unfilled row never holds stale data; transpose picks
// the L1 layout only.
Value create_l1(const OpArgs& a, Dest& d) {
  std::vector<int64_t> shape = shape_arg(a, a.required(0, "shape"));
  for (int64_t e : shape)
    if (e <= 0) throw KernelError("pl.create_l1: shape " + python_list_repr(shape) + " must have positive extents");
  c10::ScalarType dtype = a.as_dtype(a.required(1, "dtype"), "dtype");
  if (const Value* t = a.optional(2, "transpose")) a.as_bool(*t, "transpose");
  at::Tensor out = d.out(shape, dtype);
  out.zero_();
  return Value::from_tensor(out);
}

// valid_shape= of create_tile / full: the valid region (each extent within the shape).
std::vector<int64_t> valid_kwarg(const OpArgs& a, const std::vector<int64_t>& shape) {
  const Value* v = a.option("valid_shape");
  if (!v) return {};
  std::vector<int64_t> valid = a.as_int_list(*v, "valid_shape");
  if (valid.size() != shape.size())
    throw KernelError(std::string("pl.") + a.op + ": valid_shape " + python_list_repr(valid) + " must have one extent per axis of " +
                      python_list_repr(shape));
  for (size_t k = 0; k < valid.size(); ++k)
    if (valid[k] < 0 || valid[k] > shape[k])
      throw KernelError(std::string("pl.") + a.op + ": valid_shape " + python_list_repr(valid) + " exceeds the shape " +
                        python_list_repr(shape));
  return valid;
}

Value create_tile(const OpArgs& a, Dest& d) {
  std::vector<int64_t> shape = shape_arg(a, a.required(0, "shape"));
  c10::ScalarType dtype = a.as_dtype(a.required(1, "dtype"), "dtype");
  std::vector<int64_t> valid = valid_kwarg(a, shape);
  at::Tensor out = d.out(shape, dtype, {}, false, valid.empty());
  out.zero_();
  return Value::from_tensor(out, std::move(valid));
}

Value full(const OpArgs& a, Dest& d) {
  std::vector<int64_t> shape = shape_arg(a, a.required(0, "shape"));
  c10::ScalarType dtype = a.as_dtype(a.required(1, "dtype"), "dtype");
  c10::Scalar value = fill_value(a, a.required(2, "value"), dtype, "value");
  std::vector<int64_t> valid = valid_kwarg(a, shape);
  at::Tensor out = d.out(shape, dtype, {}, false, valid.empty());
  out.fill_(value);
  return Value::from_tensor(out, std::move(valid));
}

template <typename T>
void fill_ramp(at::Tensor& out, int64_t start, int64_t step, uint64_t mask) {
  T* p = out.data_ptr<T>();
  const int64_t n = out.numel();
  for (int64_t k = 0; k < n; ++k) {
    uint64_t v = static_cast<uint64_t>(start) + static_cast<uint64_t>(step * k);
    p[k] = static_cast<T>(static_cast<int64_t>(mask ? (v & mask) : v));
  }
}

// pl.arange(start, shape, dtype=INT32, descending=False): dst[.., k] = start + k (start - k).
Value arange(const OpArgs& a, Dest& d) {
  const int64_t start = a.as_int(a.required(0, "start"), "start");
  std::vector<int64_t> shape = shape_arg(a, a.required(1, "shape"));
  std::string name = "int32";
  c10::ScalarType dtype = at::kInt;
  if (const Value* v = a.optional(2, "dtype")) dtype = a.as_dtype(*v, "dtype", &name);
  bool descending = false;
  if (const Value* v = a.option("descending")) descending = a.as_bool(*v, "descending");
  if (shape.empty()) throw KernelError("pl.arange: shape must have at least one axis");
  for (size_t k = 0; k + 1 < shape.size(); ++k)
    if (shape[k] != 1)
      throw KernelError("pl.arange: leading dimensions must be 1 (shape [1, N]), got " + python_list_repr(shape));
  uint64_t mask = 0;
  if (name == "uint32") mask = 0xFFFFFFFFull;
  if (name == "uint16") mask = 0xFFFFull;
  at::Tensor out = d.out(shape, dtype);
  at::Tensor flat = out.is_contiguous() ? out : at::empty(shape, at::TensorOptions().dtype(dtype));
  const int64_t step = descending ? -1 : 1;
  switch (dtype) {
    case at::kShort: fill_ramp<int16_t>(flat, start, step, mask); break;
    case at::kInt: fill_ramp<int32_t>(flat, start, step, mask); break;
    case at::kLong: fill_ramp<int64_t>(flat, start, step, mask); break;
    default:
      throw KernelError("pl.arange: dtype must be an integer type (int16, int32, uint16, uint32), got " + name);
  }
  if (!flat.is_same(out)) out.copy_(flat);
  return Value::from_tensor(out);
}

}  // namespace

void register_creation_ops(OpTable& t) {
  t.add(fresh_result(ops::op_def<create_tensor>("create_tensor", 2, 2, {"layout", "manual_dep", "init_value"})));
  t.add(fresh_result(ops::op_def<create_tile>("create_tile", 2, 2, {"target_memory", "valid_shape"})));
  t.add(fresh_result(ops::op_def<create_l1>("create_l1", 2, 3)));
  t.add(fresh_result(ops::op_def<full>("full", 3, 3, {"valid_shape"})));
  t.add(fresh_result(ops::op_def<arange>("arange", 2, 3, {"descending"})));
}

}  // namespace pypto_golden::sim
