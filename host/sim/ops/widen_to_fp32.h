// int8 / uint8 / fp8 / bf16 to FP32, the conversion model kernels make of every weight or
// activation tile (to multiply it, or with pl.cast). ATen converts the 8-bit dtypes an
// element at a time, which took a quarter of an int8 kernel's runtime, and BF16 through a
// generic loop.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim::ops {

// Writes `src` (int8, uint8, bf16, or an 8-bit float the torch built against has, of any
// layout with a unit stride on its last axis)
// into `dst` (contiguous FP32 of the same shape), exactly. False, with nothing written, for
// any other dtype or layout: the caller converts with ATen.
bool widen_to_fp32(const at::Tensor& src, const at::Tensor& dst);

// dst.copy_(src) (same shape, any dtypes), through widen_to_fp32 where it applies.
void copy_widening(const at::Tensor& src, const at::Tensor& dst);

}  // namespace pypto_golden::sim::ops
