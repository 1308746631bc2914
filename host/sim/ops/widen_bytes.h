// int8 / uint8 / fp8 to FP32, the conversion int8 and fp8 model kernels make of every
// weight tile (to multiply it, or to dequantise it with pl.cast). ATen converts these
// dtypes an element at a time, which took a quarter of such a kernel's runtime.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim::ops {

// Writes `src` (int8, uint8, or an 8-bit float the torch built against has, of any layout with a unit stride on its last axis)
// into `dst` (contiguous FP32 of the same shape), exactly. False, with nothing written, for
// any other dtype or layout: the caller converts with ATen.
bool widen_bytes_to_fp32(const at::Tensor& src, const at::Tensor& dst);

// dst.copy_(src) (same shape, any dtypes), through widen_bytes_to_fp32 where it applies.
void copy_widening(const at::Tensor& src, const at::Tensor& dst);

}  // namespace pypto_golden::sim::ops
