// The ISA-independent halves of the SIMD sort paths (sort_kernels_avx2.cpp,
// sort_kernels_avx512.cpp): feeding sort32 whole register groups of blocks, and merging
// runs in pairwise rounds like the reference. Each path passes its own kernels, which are
// ordinary (not always-inline) functions so that this generic code may call them.
#pragma once

#include "sim/ops/sort_kernels.h"

#include <cstring>
#include <utility>
#include <vector>

namespace pypto_golden::sim::sort_kernels {

// sort32 over n elements (a multiple of 32) in groups of GROUP elements, one call of
// sort_group(src, idx32, idx64, out) each; a last partial group goes through zero-padded
// copies whose extra blocks are dropped.
template <int64_t GROUP, typename SortGroup>
void sort32_in_groups(const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out,
                      SortGroup sort_group) {
  const int64_t full = n / GROUP * GROUP;
  for (int64_t base = 0; base < full; base += GROUP)
    sort_group(src + base, idx32 ? idx32 + base : nullptr, idx64 ? idx64 + base : nullptr, out + base);
  if (full == n) return;
  alignas(64) float s[GROUP] = {};
  alignas(64) int32_t i[GROUP] = {};
  alignas(64) Pair o[GROUP];
  const int64_t rest = n - full;
  std::memcpy(s, src + full, static_cast<size_t>(rest) * sizeof(float));
  for (int64_t k = 0; k < rest; ++k) i[k] = static_cast<int32_t>(idx64 ? idx64[full + k] : idx32[full + k]);
  sort_group(s, i, nullptr, o);
  std::memcpy(out + full, o, static_cast<size_t>(rest) * sizeof(Pair));
}

// Merges the runs [starts[r], starts[r + 1]) (r < runs, runs >= 2) of `pairs` into out in
// pairwise rounds, as the reference does (on sorted runs any order gives its result).
// run_keys(run, len, pos0, keys) writes a run's keys and returns false when the run is not
// sorted, and so does this (the reference must merge it); merge2(a, na, b, nb, out) merges
// two key runs; gather(pairs, keys, n, out) writes the pairs in key order. Key buffers have
// `slack` keys of room past their end for whole-register reads and writes.
template <typename Key, typename RunKeys, typename Merge2, typename Gather>
bool merge_in_rounds(const Pair* pairs, const int64_t* starts, size_t runs, Pair* out, int64_t slack,
                     RunKeys run_keys, Merge2 merge2, Gather gather) {
  const int64_t first = starts[0], total = starts[runs] - first;
  static thread_local std::vector<Key> buf;
  static thread_local std::vector<std::pair<int64_t, int64_t>> segs, next;  // (offset, length)
  const int64_t span = total + slack;
  buf.resize(static_cast<size_t>(2 * span));
  Key* cur = buf.data();
  Key* alt = cur + span;
  segs.clear();
  for (size_t r = 0; r < runs; ++r) {
    const int64_t lo = starts[r] - first, len = starts[r + 1] - starts[r];
    if (!run_keys(pairs + starts[r], len, static_cast<uint32_t>(lo), cur + lo)) return false;
    segs.emplace_back(lo, len);
  }
  while (segs.size() > 1) {
    next.clear();
    for (size_t r = 0; r < segs.size(); r += 2) {
      const int64_t off = segs[r].first;
      if (r + 1 < segs.size()) {
        merge2(cur + off, segs[r].second, cur + segs[r + 1].first, segs[r + 1].second, alt + off);
        next.emplace_back(off, segs[r].second + segs[r + 1].second);
      } else {
        if (segs[r].second > 0) std::memcpy(alt + off, cur + off, static_cast<size_t>(segs[r].second) * sizeof(Key));
        next.push_back(segs[r]);
      }
    }
    std::swap(cur, alt);
    segs.swap(next);
  }
  gather(pairs + first, cur, total, out);
  return true;
}

}  // namespace pypto_golden::sim::sort_kernels
