// Elementwise ops. Results keep the dtype of the first (tensor) operand: the hardware has
// no implicit promotion, so mixed dtypes are a kernel error rather than a silent upcast.
#include "sim/kernel_error.h"
#include "sim/ops/op_table.h"
#include "tensor/dtype_names.h"

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ScalarOps.h>

namespace pypto_golden::sim {
namespace {

c10::Scalar scalar_operand(const char* op, const at::Tensor& lhs, const Value& rhs) {
  bool lhs_float = at::isFloatingType(lhs.scalar_type());
  if (rhs.kind == Value::Kind::Float) {
    if (!lhs_float)
      throw KernelError(std::string(op) + ": cannot combine a " + pypto_name(lhs.scalar_type()) +
                        " tensor with a float scalar; cast one side with pl.cast");
    return c10::Scalar(rhs.f);
  }
  return c10::Scalar(rhs.as_int(op));
}

void check_tensor_operands(const char* op, const at::Tensor& lhs, const at::Tensor& rhs) {
  if (lhs.scalar_type() != rhs.scalar_type())
    throw KernelError(std::string(op) + ": operand dtypes differ (" + pypto_name(lhs.scalar_type()) +
                      " vs " + pypto_name(rhs.scalar_type()) + "); cast one side with pl.cast");
}

Value add(const OpArgs& a) {
  const at::Tensor& lhs = a.positional[0].as_tensor("pl.add's first argument");
  const Value& rhs = a.positional[1];
  if (rhs.is_tensor()) {
    check_tensor_operands("pl.add", lhs, rhs.tensor);
    return Value::from_tensor(at::add(lhs, rhs.tensor));
  }
  if (!rhs.is_scalar())
    throw KernelError("pl.add's second argument must be a tensor or a scalar, got " + rhs.describe());
  return Value::from_tensor(at::add(lhs, scalar_operand("pl.add", lhs, rhs)));
}

bool overlaps(const at::Tensor& dst, const at::Tensor& src) {
  return at::get_overlap_status(dst, src) != at::MemOverlapStatus::No;
}

bool add_into(const OpArgs& a, const at::Tensor& dst) {
  const Value& lhs_v = a.positional[0];
  const Value& rhs = a.positional[1];
  if (!lhs_v.is_tensor()) return false;
  const at::Tensor& lhs = lhs_v.tensor;
  if (lhs.scalar_type() != dst.scalar_type() || !lhs.sizes().equals(dst.sizes())) return false;
  if (overlaps(dst, lhs)) return false;
  if (rhs.is_tensor()) {
    if (rhs.tensor.scalar_type() != lhs.scalar_type() || overlaps(dst, rhs.tensor)) return false;
    at::add_out(const_cast<at::Tensor&>(dst), lhs, rhs.tensor);
    return true;
  }
  if (!rhs.is_scalar()) return false;
  // A 0-dim double/long operand promotes like a Python number: the math stays in lhs dtype.
  at::add_out(const_cast<at::Tensor&>(dst), lhs, c10::scalar_to_tensor(scalar_operand("pl.add", lhs, rhs)));
  return true;
}

}  // namespace

void register_elementwise_ops(OpTable& table) {
  table.add({"add", 2, 2, {}, &add, &add_into});
}

}  // namespace pypto_golden::sim
