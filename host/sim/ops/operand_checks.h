// Checks of an op's tensor operands (dtype, rank) with "pl.<op>: ..." messages, and the
// dtype facts they and the ops share.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace pypto_golden::sim::ops {

// PyPTO dtype name of an ATen type ("fp32"; ATen's own name for types PyPTO lacks).
std::string dtype_str(c10::ScalarType t);

void check_same_dtype(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b,
                      const char* b_name);
void check_float(const char* op, const at::Tensor& t, const char* name);
// Refuses the 8-bit floats, which only pl.cast, pl.matmul and data movement accept.
void check_vector_dtype(const char* op, const at::Tensor& t, const char* name);
// "pl.<op>: <name> must have rank >= n".
void check_rank_at_least(const char* op, const at::Tensor& t, const char* name, int64_t n);

// Bounds of a dtype as doubles ("max"/"min" pad values, saturation).
double dtype_max(c10::ScalarType t);
double dtype_lowest(c10::ScalarType t);

}  // namespace pypto_golden::sim::ops
