// The kernels behind pl.sort32 and pl.mrgsort, free of torch: a portable scalar path (the
// reference) and AVX-512 and AVX2 paths, one picked once at run time. All give bit-identical
// results for every input, including NaN payloads, -0 / +0, ties and runs that are not sorted.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pypto_golden::sim::sort_kernels {

// One element of a sorted row: the value and the raw 32 bits of its index lane.
struct Pair {
  float v;
  uint32_t bits;
};
static_assert(sizeof(Pair) == 8, "pairs are two 32-bit lanes");

enum class Isa { Scalar, Avx2, Avx512 };

const char* isa_name(Isa isa);
// Whether this CPU (and this build) can run `isa`.
bool isa_supported(Isa isa);
// PYPTO_SIM_SORT_ISA's meaning (raw = nullptr when unset): unset or "auto" -> the fastest
// supported ISA (AVX-512, then AVX2, then scalar), "avx2" -> Isa::Avx2 where the CPU has
// it (else Isa::Scalar), "scalar" -> Isa::Scalar. Anything else throws std::invalid_argument
// naming the variable, the accepted values and the value found.
Isa isa_from_env_value(const char* raw);
// The ISA the ops use: PYPTO_SIM_SORT_ISA, read once per process.
Isa active_isa();

// The kernels take the ISA to run (a request for an unsupported one runs the scalar path).

// Sorts each 32-element block of src[0, n) (n a multiple of 32) descending and stable into
// out[0, n): value and index (the low 32 bits of idx32[k] or idx64[k]; exactly one of them
// is non-null) of the element. NaN sorts first, -0 == +0.
void sort32(Isa isa, const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out);

// Merges the runs [starts[r], starts[r + 1]) (r < runs) of `pairs` into out[0, starts[runs] -
// starts[0]): descending, ties keep the earlier position. Runs that are not sorted give what
// the scalar pairwise two-ended merge gives. `out` must not overlap the runs.
void merge_runs(Isa isa, const Pair* pairs, const int64_t* starts, size_t runs, Pair* out);

}  // namespace pypto_golden::sim::sort_kernels
