// INT8 x INT8 products in INT32 through oneDNN's integer gemm (at::_int_mm), where it is
// exact and fast: a model kernel's a8w8 matmuls otherwise widen both operands to FP32 and
// run sgemm over chunks of K (matmul.cpp), 3-7x slower on a CPU with AVX-512 VNNI.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace pypto_golden::sim::ops {

// lhs @ rhs for INT8 `lhs` [M, K] / [B, M, K] and `rhs` [K, N] / [B, K, N] (any strides;
// batches paired as at::matmul pairs them: equal, or one side's 1 or missing), as a new
// INT32 tensor of the product's shape. The sums wrap modulo 2^32 as INT32 does, so they
// equal the exact product wherever it fits INT32 and the hardware accumulator's wrap
// otherwise, whatever order the gemm adds in. Empty, with nothing computed, for any other
// form and when the integer gemm is not usable here (int8_gemm_usable).
std::optional<at::Tensor> int8_gemm(const at::Tensor& lhs, const at::Tensor& rhs);

// Whether at::_int_mm is used: this torch has it on the CPU, the CPU has AVX-512 VNNI
// (oneDNN's AVX2 kernels sum pairs of products in 16 bits, saturating: wrong results), no
// ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA caps it, and a probe of extreme and random operands
// matches the exact product. Decided once per process.
bool int8_gemm_usable();

// Tests only: run every product through the FP32 path (true), or back to the default.
void disable_int8_gemm_for_tests(bool disabled);

}  // namespace pypto_golden::sim::ops
