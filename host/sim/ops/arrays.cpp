// pl.array: small fixed-size 1-D arrays of integers, BOOL or task ids (pl.array.create,
// arr[i], arr[i] = v). PyPTO lowers them to a C array on the stack of the function (or
// InCore task) that creates them, and `arr[i] = v` writes that storage in place; so here
// an array is one 1-D host tensor that every name bound to it shares. Task-id arrays start
// as "no task" (-1), the others as zeros, as PyPTO's code generator initialises them.
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"

#include <ATen/ATen.h>

#include <string>

namespace pypto_golden::sim {
namespace {

const at::Tensor& array_of(const OpArgs& a, const char* label) {
  const Value& v = a.required(0, "array");
  if (!v.is_tensor() || v.tensor.dim() != 1)
    throw KernelError(std::string(label) + ": the array must be a pl.array, got " + v.describe());
  return v.tensor;
}

int64_t checked_index(const OpArgs& a, const at::Tensor& t, const char* label) {
  const Value& iv = a.required(1, "index");
  if (iv.kind != Value::Kind::Int)
    throw KernelError(std::string(label) + ": the index must be an integer scalar, got " + iv.describe());
  const int64_t n = t.size(0);
  if (iv.i < 0 || iv.i >= n)
    throw KernelError(std::string(label) + ": index " + std::to_string(iv.i) + " is outside the array of " +
                      std::to_string(n) + " elements");
  return iv.i;
}

// pl.array.create(extent, dtype): zeros, or -1 ("no task") for pl.TASK_ID.
Value create(const OpArgs& a) {
  const int64_t n = a.as_int(a.required(0, "extent"), "extent");
  if (n <= 0) throw KernelError("pl.array.create: the extent must be positive, got " + std::to_string(n));
  std::string name;
  const c10::ScalarType st = a.as_dtype(a.required(1, "dtype"), "dtype", &name);
  const bool task_ids = name == "task_id";
  if (!task_ids && !(at::isIntegralType(st, /*includeBool=*/true)))
    throw KernelError("pl.array.create: the dtype must be an integer dtype, pl.BOOL or pl.TASK_ID, got " + name);
  return Value::from_tensor(at::full({n}, task_ids ? -1 : 0, at::TensorOptions().dtype(st)));
}

// arr[i]: the element as a scalar of the array's dtype.
Value get_element(const OpArgs& a) {
  const char* label = "pl.array.get_element";
  const at::Tensor& t = array_of(a, label);
  const int64_t i = checked_index(a, t, label);
  switch (t.scalar_type()) {
    case at::kBool: return Value::from_bool(t.const_data_ptr<bool>()[i]);
    case at::kByte: return Value::from_int(t.const_data_ptr<uint8_t>()[i], at::kByte);
    case at::kChar: return Value::from_int(t.const_data_ptr<int8_t>()[i], at::kChar);
    case at::kShort: return Value::from_int(t.const_data_ptr<int16_t>()[i], at::kShort);
    case at::kInt: return Value::from_int(t.const_data_ptr<int32_t>()[i], at::kInt);
    default: return Value::from_int(t.const_data_ptr<int64_t>()[i], at::kLong);
  }
}

// arr[i] = v: writes the element in place (converted to the array's dtype as a C store
// would: integers wrap) and returns the array itself.
Value update_element(const OpArgs& a) {
  const char* label = "pl.array.update_element";
  const Value& av = a.required(0, "array");
  const at::Tensor& t = array_of(a, label);
  const int64_t i = checked_index(a, t, label);
  const Value& v = a.required(2, "value");
  if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Bool)
    throw KernelError(std::string(label) + ": the value must be an integer scalar, got " + v.describe() +
                      "; the array is " + ops::dtype_str(t.scalar_type()));
  switch (t.scalar_type()) {
    case at::kBool: t.data_ptr<bool>()[i] = v.i != 0; break;
    case at::kByte: t.data_ptr<uint8_t>()[i] = static_cast<uint8_t>(v.i); break;
    case at::kChar: t.data_ptr<int8_t>()[i] = static_cast<int8_t>(v.i); break;
    case at::kShort: t.data_ptr<int16_t>()[i] = static_cast<int16_t>(v.i); break;
    case at::kInt: t.data_ptr<int32_t>()[i] = static_cast<int32_t>(v.i); break;
    default: t.data_ptr<int64_t>()[i] = v.i; break;
  }
  return av;
}

}  // namespace

void register_array_ops(OpTable& t) {
  // An array is a value of its task or orchestration, not a tensor of the task graph.
  t.add(fresh_result(OpDef{"array_create", 2, 2, {}, &ops::guarded<create>, nullptr}));
  t.add(fresh_result(OpDef{"array_get_element", 2, 2, {}, &ops::guarded<get_element>, nullptr, -1, 1u << 0}));
  t.add(OpDef{"array_update_element", 3, 3, {}, &ops::guarded<update_element>, nullptr, 0, 1u << 0});
}

}  // namespace pypto_golden::sim
