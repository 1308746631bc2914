// Tile products that are one 2-D gemm, handed to BLAS directly. A task's matmul is a small
// tile product (16 x 64 by 64 x 32): ATen's matmul spends ~4 us reshaping, transposing and
// dispatching around a 0.5 us sgemm, several times the product itself.
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

// The same for BF16 `a` and `b` into FP32 `c`, through MKL's gemm_bf16bf16f32 where it is
// usable (bf16_gemm_usable): the products are exact in FP32 and summed in FP32, as the
// widened operands' sgemm sums them, in MKL's own order (results within FP32 rounding of
// sgemm's, equal wherever the sums are exact); like AMX, it takes BF16 subnormals as zero.
// 2.5-4.5x faster than widening both operands and calling sgemm on a CPU with AMX.
// False, with nothing written, where direct_sgemm would be, and where it is not usable.
bool direct_bf16_gemm(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, bool accumulate);

// Whether direct_bf16_gemm is used: the torch this runs with exports MKL's
// gemm_bf16bf16f32 and the CPU computes BF16 products natively (AVX512_BF16 / AMX, where
// MKL is faster than the widening; elsewhere it widens too). Decided once per process.
bool bf16_gemm_usable();

// Tests only: every BF16 product through the widened FP32 path (true), or back to the default.
void disable_bf16_gemm_for_tests(bool disabled);

}  // namespace pypto_golden::sim::ops
