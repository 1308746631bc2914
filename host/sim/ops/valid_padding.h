// Valid regions of op results and the padding outside them.
#pragma once

#include "sim/ops/op_args.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <cstdint>
#include <vector>

namespace pypto_golden::sim::ops {

// The valid region of an elementwise result over operands `a` (and `b` of the same shape):
// the intersection of their regions (empty = fully valid).
std::vector<int64_t> merged_valid(const Value& a, const Value* b);

// The pad value of `dtype` for a pad_value argument: "PadValue.zero/max/min" (max / min are the
// dtype's largest / most negative finite values) or the literals 0, inf, -inf.
c10::Scalar pad_scalar(const OpArgs& a, const Value& v, c10::ScalarType dtype);
// Fills everything outside the origin-anchored box `valid` of `t` with `value`.
void fill_outside(at::Tensor t, const std::vector<int64_t>& valid, const c10::Scalar& value);

}  // namespace pypto_golden::sim::ops
