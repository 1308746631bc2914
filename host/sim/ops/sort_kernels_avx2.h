// AVX2 sort kernels (sort_kernels_avx2.cpp); call them only when isa_supported(Isa::Avx2).
// sort_kernels.cpp dispatches to them.
#pragma once

#include "sim/ops/sort_kernels.h"

namespace pypto_golden::sim::sort_kernels::avx2 {

// False when the build has no AVX2 code (not x86-64, or a compiler without target
// attributes); the CPU check is separate.
bool compiled();

void sort32(const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out);

// As merge_runs, but only for runs that are each sorted: returns false, having written
// nothing, when one is not (the caller then runs the scalar merge, whose output on such
// input is what defines the result).
bool merge_sorted_runs(const Pair* pairs, const int64_t* starts, size_t runs, Pair* out);

}  // namespace pypto_golden::sim::sort_kernels::avx2
