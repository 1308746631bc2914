// The element pass the gates share: a parallel walk over runs in blocks of kGateBlock, the
// vectorised per-block tally of the two ratio gates, and the rescans of a block (still in L1)
// that locate or list its points. Include it after a gate file's
//   #pragma GCC optimize("no-trapping-math", "fp-contract=off")
// so these templates get the same floating-point options as the gate's own element math.
#pragma once

#include "validate/gate_common.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <limits>
#include <mutex>

namespace pypto_golden {

// Runs block(local, logical_index, actual, expected, n) for every block of logical [0,
// runs.numel()), in parallel chunks; each chunk starts from a copy of `init` and is folded
// into the caller's totals by merge(local), one chunk at a time.
template <typename Local, typename T, typename Block, typename Merge>
void scan_blocks(const T* a, const T* e, const Runs& runs, const Local& init, Block&& block, Merge&& merge) {
  std::mutex mu;
  at::parallel_for(0, runs.numel(), kGateGrain, [&](int64_t begin, int64_t end) {
    Local local = init;
    for_each_piece(runs, begin, end, [&](int64_t logical, int64_t at, int64_t n) {
      for (int64_t b = 0; b < n; b += kGateBlock)
        block(local, logical + b, a + at + b, e + at + b, std::min(kGateBlock, n - b));
    });
    std::lock_guard<std::mutex> lock(mu);
    merge(local);
  });
}

// The first i in [0, m) with pred(i), or -1.
template <typename F>
int64_t first_index(int64_t m, F&& pred) {
  for (int64_t i = 0; i < m; ++i)
    if (pred(i)) return i;
  return -1;
}

// What one element adds to the NaN and infinity counts of its side. They return the count
// rather than add to a reference: a reduction variable whose address is taken in an
// `omp simd` loop stops the loop from vectorising.
inline int32_t nan_count(float x) { return x != x ? 1 : 0; }
inline int32_t inf_count(float x) { return std::fabs(x) == std::numeric_limits<float>::infinity() ? 1 : 0; }

// One element as a ratio gate judges it: bad or not, and the score the block keeps the
// greatest of (a NaN score is never kept).
struct Judged {
  bool bad;
  float score;
};

struct BlockTally {
  int32_t bad, actual_nan, actual_inf, expected_nan, expected_inf;
  float top;  // greatest score, -1 when none is greater
  NonFinite nonfinite() const { return {actual_nan, actual_inf, expected_nan, expected_inf}; }
};

// The vectorised pass of a ratio gate over one block, both sides read as float32; judge(x, y)
// is inlined into the loop, which must stay a SIMD reduction. Always inlined, so that each
// PYPTO_GATE_KERNEL clone vectorises it for its own instruction set (GCC would otherwise keep
// one baseline copy and call it).
template <typename T, typename Judge>
__attribute__((always_inline)) inline BlockTally tally_block(const T* __restrict a, const T* __restrict e, int64_t m,
                                                             Judge judge) {
  int32_t bad = 0, an = 0, ai = 0, en = 0, ei = 0;
  float top = -1.0f;
#pragma omp simd reduction(+ : bad, an, ai, en, ei) reduction(max : top)
  for (int64_t i = 0; i < m; ++i) {
    const float x = load_f32(a[i]), y = load_f32(e[i]);
    an += nan_count(x);
    ai += inf_count(x);
    en += nan_count(y);
    ei += inf_count(y);
    const Judged j = judge(x, y);
    bad += j.bad ? 1 : 0;
    top = j.score > top ? j.score : top;
  }
  return {bad, an, ai, en, ei, top};
}

// Appends a block's bad points in index order while fewer than `limit` are listed;
// examine(i, point) fills the point's values and says whether element i is bad.
template <typename F>
void list_bad_points(std::vector<ListedPoint>& listed, size_t limit, int64_t base, int64_t m, F&& examine) {
  for (int64_t i = 0; i < m && listed.size() < limit; ++i) {
    ListedPoint p;
    if (!examine(i, p)) continue;
    p.index = base + i;
    listed.push_back(p);
  }
}

}  // namespace pypto_golden
