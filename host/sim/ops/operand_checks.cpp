#include "sim/ops/operand_checks.h"

#include "sim/kernel_error.h"
#include "tensor/dtype_names.h"
#include "tensor/float8.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <limits>

namespace pypto_golden::sim::ops {

std::string dtype_str(c10::ScalarType t) {
  try {
    return pypto_name(t);
  } catch (const std::exception&) {
    return c10::toString(t);
  }
}

void check_same_dtype(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b,
                      const char* b_name) {
  if (a.scalar_type() != b.scalar_type())
    throw KernelError(std::string("pl.") + op + ": " + a_name + " is " + dtype_str(a.scalar_type()) + " but " +
                      b_name + " is " + dtype_str(b.scalar_type()) +
                      "; PyPTO has no implicit promotion, convert one side with pl.cast");
}

void check_vector_dtype(const char* op, const at::Tensor& t, const char* name) {
  if (is_float8(t.scalar_type()))
    throw KernelError(std::string("pl.") + op + ": " + name + " is " + dtype_str(t.scalar_type()) +
                      ", which the vector unit does not compute on (fp8 tiles go to pl.matmul or "
                      "pl.cast); pl.cast it to fp32, fp16 or bfloat16 first");
}

void check_float(const char* op, const at::Tensor& t, const char* name) {
  if (!at::isFloatingType(t.scalar_type()))
    throw KernelError(std::string("pl.") + op + ": " + name + " must be a float tensor (fp32, fp16, bfloat16), got " +
                      dtype_str(t.scalar_type()));
}

void check_rank_at_least(const char* op, const at::Tensor& t, const char* name, int64_t n) {
  if (t.dim() < n)
    throw KernelError(std::string("pl.") + op + ": " + name + " must have rank >= " + std::to_string(n) +
                      ", got shape " + python_shape_repr(t.sizes()));
}

double dtype_max(c10::ScalarType t) {
  switch (t) {
    case at::kFloat: return std::numeric_limits<float>::max();
    case at::kHalf: return 65504.0;
    case at::kBFloat16: return static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
    case at::kDouble: return std::numeric_limits<double>::max();
    case at::kChar: return 127.0;
    case at::kByte: return 255.0;
    case at::kShort: return 32767.0;
    case at::kInt: return 2147483647.0;
    case at::kLong: return 9223372036854775807.0;
    case at::kBool: return 1.0;
    default: break;
  }
  throw KernelError("no maximum for dtype " + dtype_str(t));
}

double dtype_lowest(c10::ScalarType t) {
  switch (t) {
    case at::kFloat: return std::numeric_limits<float>::lowest();
    case at::kHalf: return -65504.0;
    case at::kBFloat16: return static_cast<double>(std::numeric_limits<c10::BFloat16>::lowest());
    case at::kDouble: return std::numeric_limits<double>::lowest();
    case at::kChar: return -128.0;
    case at::kByte: return 0.0;
    case at::kShort: return -32768.0;
    case at::kInt: return -2147483648.0;
    case at::kLong: return -9223372036854775808.0;
    case at::kBool: return 0.0;
    default: break;
  }
  throw KernelError("no minimum for dtype " + dtype_str(t));
}

}  // namespace pypto_golden::sim::ops
