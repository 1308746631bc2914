// FP32 products that are one 2-D gemm, handed to BLAS's sgemm_ directly. A task's matmul
// is a small tile product (16 x 64 by 64 x 32): ATen's matmul spends ~4 us reshaping,
// transposing and dispatching around a 0.5 us sgemm, several times the product itself.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim::ops {

// c = a @ b, or c += a @ b with `accumulate`, for FP32 `a` [..., M, K] and `b` [..., K, N]
// (any strides, every axis before the last two of extent 1) into `c`, contiguous FP32 of
// the product's shape. The sgemm_ call is the one ATen's mm makes for the same operands
// (the same operand order, transposes and leading dimensions), so the bits are those of
// at::mm / at::matmul. Returns false, with nothing written, for any other form (a batch, a
// 1-D operand, a unit N or K, a layout ATen would copy first, a batched product ATen
// computes in its own loop) and when the torch this runs with has no sgemm_: the caller
// then uses ATen.
bool direct_sgemm(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, bool accumulate);

}  // namespace pypto_golden::sim::ops
