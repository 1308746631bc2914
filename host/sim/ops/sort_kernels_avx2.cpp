// AVX2 sort kernels for CPUs without AVX-512. Only AVX2 (with AVX) is used, enabled per
// function with target attributes so the rest of the build stays generic; sort_kernels.cpp
// calls these only after a CPU check.
//
// Same scheme as the AVX-512 kernels (see sort_kernels_avx512.cpp): keys whose order is the
// reference's, with the position in the low half so all keys are distinct and any correct
// sorting method gives the reference's permutation; runs that are not sorted go to the
// reference. AVX2 has no 64-bit min / max and only a signed 64-bit compare, so the keys
// here are int64 with the order key's top bit flipped (signed order = the reference's
// unsigned order), and a compare-exchange is one compare and two blends.
#include "sim/ops/sort_kernels_avx2.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include "sim/ops/sort_kernel_drivers.h"

#include <algorithm>
#include <cstring>
#include <vector>

#define SORT_AVX2 __attribute__((target("avx2")))
#define SORT_AVX2_INLINE inline __attribute__((target("avx2"), always_inline))

namespace pypto_golden::sim::sort_kernels::avx2 {
namespace {

// Above every key: order keys with the top bit flipped are at most 0x7F7FFFFF.
constexpr int64_t kPad = INT64_MAX;

// Signed order keys of 8 float bit patterns: ascending int32 order = the reference key's
// order (descending values, -0 == +0, NaN first). 0x7FFFFFFF - t, with t the value as a
// two's complement integer (so -0 -> 0), lies in [0x007FFFFF, 0xFF7FFFFF], NaN -> 0; the
// top bit is then flipped for the signed compares.
SORT_AVX2_INLINE __m256i order_keys(__m256i u) {
  const __m256i low31 = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i m = _mm256_srai_epi32(u, 31);                               // 0 or -1 by sign
  const __m256i x = _mm256_xor_si256(_mm256_and_si256(u, low31), m);       // (u & low31) ^ m
  const __m256 f = _mm256_castsi256_ps(u);
  const __m256i number = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_ORD_Q));
  const __m256i key = _mm256_and_si256(_mm256_add_epi32(_mm256_sub_epi32(low31, x), m), number);  // low31 - (x - m)
  return _mm256_xor_si256(key, _mm256_set1_epi32(INT32_MIN));
}

SORT_AVX2_INLINE __m256i blend(__m256i a, __m256i b, __m256i take_b) {
  return _mm256_castpd_si256(
      _mm256_blendv_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b), _mm256_castsi256_pd(take_b)));
}

// Compare-exchange of whole registers: a gets the lane-wise minimum.
SORT_AVX2_INLINE void cx(__m256i& a, __m256i& b) {
  const __m256i gt = _mm256_cmpgt_epi64(a, b);
  const __m256i lo = blend(a, b, gt);
  b = blend(b, a, gt);
  a = lo;
}

// Bitonic merge of the bitonic sequence x[0, R) (4 R keys) into ascending order out[0,
// 4 R): half-cleaners across registers, then the last two stages inside each register pair,
// whose results go out as 128-bit halves (cheaper than shuffling them back first).
template <int R>
SORT_AVX2_INLINE void merge_network_store(__m256i* x, int64_t* out) {
#pragma GCC unroll 4
  for (int s = R / 2; s >= 1; s /= 2) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      if ((r & s) == 0) cx(x[r], x[r + s]);
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; r += 2) {
    __m256i y0 = _mm256_permute2x128_si256(x[r], x[r + 1], 0x20), y1 = _mm256_permute2x128_si256(x[r], x[r + 1], 0x31);
    cx(y0, y1);  // y0 = [a0 a1 b0 b1], y1 = [a2 a3 b2 b3] (a = x[r], b = x[r + 1])
    __m256i l = _mm256_unpacklo_epi64(y0, y1), h = _mm256_unpackhi_epi64(y0, y1);
    cx(l, h);                                    // l = [a0 a2 b0 b2], h = [a1 a3 b1 b3]
    const __m256i lo = _mm256_unpacklo_epi64(l, h);  // [a0 a1 b0 b1]
    const __m256i hi = _mm256_unpackhi_epi64(l, h);  // [a2 a3 b2 b3]
    __m128i* o = reinterpret_cast<__m128i*>(out + 4 * r);
    _mm_storeu_si128(o, _mm256_castsi256_si128(lo));
    _mm_storeu_si128(o + 1, _mm256_castsi256_si128(hi));
    _mm_storeu_si128(o + 2, _mm256_extracti128_si256(lo, 1));
    _mm_storeu_si128(o + 3, _mm256_extracti128_si256(hi, 1));
  }
}

// ---------------------------------------------------------------------------------------
// sort32: two 32-key blocks at a time in 16 registers. Register r holds the keys with
// network index bits 0..3 = r; lane 2b + h holds block b's key with index bit 4 = h. As in
// the AVX-512 kernel the network is the bitonic sort in its "flip" form, so 14 of its 15
// stages compare whole registers. Which input goes to which network index is free (a
// sorting network sorts any arrangement), so the keys go in as they unpack.

template <int MASK, int TOP>
SORT_AVX2_INLINE void vertical_stage(__m256i* x) {
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r)
    if ((r & TOP) == 0) cx(x[r], x[r ^ MASK]);
}

SORT_AVX2_INLINE void sort32x2_network(__m256i* x) {
  vertical_stage<1, 1>(x);
  vertical_stage<3, 2>(x);
  vertical_stage<1, 1>(x);
  vertical_stage<7, 4>(x);
  vertical_stage<2, 2>(x);
  vertical_stage<1, 1>(x);
  vertical_stage<15, 8>(x);
  vertical_stage<4, 4>(x);
  vertical_stage<2, 2>(x);
  vertical_stage<1, 1>(x);
  // Flip of all five index bits: partner of (r, lane) is (15 - r, lane ^ 1). Even lanes
  // (index bit 4 clear) keep the minimum, odd ones the maximum: one compare decides both.
  const __m256i odd = _mm256_set_epi64x(-1, 0, -1, 0);
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    const __m256i p = _mm256_shuffle_epi32(x[15 - r], 0x4E);
    const __m256i take_p = _mm256_xor_si256(_mm256_cmpgt_epi64(x[r], p), odd);
    const __m256i mine = blend(x[r], p, take_p);
    x[15 - r] = _mm256_shuffle_epi32(blend(p, x[r], take_p), 0x4E);
    x[r] = mine;
  }
  vertical_stage<8, 8>(x);
  vertical_stage<4, 4>(x);
  vertical_stage<2, 2>(x);
  vertical_stage<1, 1>(x);
}

// t[at[k]] for eight positions below 32 (t: four registers of eight dwords): a lane
// permute of each register, then blends by position bits 3 and 4 (moved to the sign bit).
// Cheaper than scalar picks or AVX2's gathers (slow on the Zen 2 / 3 cores this path is for).
SORT_AVX2_INLINE __m256i pick32(const __m256i* t, __m256i at) {
  const __m256 bit3 = _mm256_castsi256_ps(_mm256_slli_epi32(at, 28));
  const __m256 bit4 = _mm256_castsi256_ps(_mm256_slli_epi32(at, 27));
  const __m256 p0 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[0], at));
  const __m256 p1 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[1], at));
  const __m256 p2 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[2], at));
  const __m256 p3 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[3], at));
  const __m256 low = _mm256_blendv_ps(p0, p1, bit3), high = _mm256_blendv_ps(p2, p3, bit3);
  return _mm256_castps_si256(_mm256_blendv_ps(low, high, bit4));
}

// Sorts blocks [0, 2) of src / idx (64 elements) into out.
SORT_AVX2 void sort32x2(const float* src, const int32_t* idx32, const int64_t* idx64, Pair* out) {
  __m256i x[16];
  const __m256i iota = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    // Keys 8q..8q+7 of both blocks; unpacking with the positions gives 64-bit keys of
    // elements {0, 1, 4, 5} and {2, 3, 6, 7} (+ 8q), and 128-bit swaps put block 0 in
    // lanes 0-1 and block 1 in lanes 2-3.
    const __m256i pos = _mm256_add_epi32(_mm256_set1_epi32(8 * q), iota);
    const __m256i k0 = order_keys(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 * q)));
    const __m256i k1 = order_keys(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32 + 8 * q)));
    const __m256i lo0 = _mm256_unpacklo_epi32(pos, k0), hi0 = _mm256_unpackhi_epi32(pos, k0);
    const __m256i lo1 = _mm256_unpacklo_epi32(pos, k1), hi1 = _mm256_unpackhi_epi32(pos, k1);
    x[4 * q] = _mm256_permute2x128_si256(lo0, lo1, 0x20);
    x[4 * q + 1] = _mm256_permute2x128_si256(lo0, lo1, 0x31);
    x[4 * q + 2] = _mm256_permute2x128_si256(hi0, hi1, 0x20);
    x[4 * q + 3] = _mm256_permute2x128_si256(hi0, hi1, 0x31);
  }
  sort32x2_network(x);
  // Sorted position j of block b sits in register j & 15, lane 2b + (j >> 4). 4x4
  // transposes of 64-bit lanes give col[L][g]: lane L's keys of registers 4g..4g+3.
  __m256i col[4][4];
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const __m256i t0 = _mm256_unpacklo_epi64(x[4 * g], x[4 * g + 1]);
    const __m256i t1 = _mm256_unpackhi_epi64(x[4 * g], x[4 * g + 1]);
    const __m256i t2 = _mm256_unpacklo_epi64(x[4 * g + 2], x[4 * g + 3]);
    const __m256i t3 = _mm256_unpackhi_epi64(x[4 * g + 2], x[4 * g + 3]);
    col[0][g] = _mm256_permute2x128_si256(t0, t2, 0x20);
    col[1][g] = _mm256_permute2x128_si256(t1, t3, 0x20);
    col[2][g] = _mm256_permute2x128_si256(t0, t2, 0x31);
    col[3][g] = _mm256_permute2x128_si256(t1, t3, 0x31);
  }
#pragma GCC unroll 2
  for (int b = 0; b < 2; ++b) {
    __m256i v[4], i[4];
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      v[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32 * b + 8 * c));
      if (idx64) {  // the low dwords of eight int64
        const __m256 lo = _mm256_loadu_ps(reinterpret_cast<const float*>(idx64 + 32 * b + 8 * c));
        const __m256 hi = _mm256_loadu_ps(reinterpret_cast<const float*>(idx64 + 32 * b + 8 * c + 4));
        i[c] = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8);
      } else {
        i[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx32 + 32 * b + 8 * c));
      }
    }
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      // Sorted positions j0 + {0, 1, 4, 5 | 2, 3, 6, 7} (the low dwords of two column
      // vectors), an order that the pair interleave below turns into j0 .. j0 + 7.
      const int h = k >> 1, g = 2 * (k & 1), j0 = 16 * h + 4 * g;
      const __m256i at = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(col[2 * b + h][g]),
                                                               _mm256_castsi256_ps(col[2 * b + h][g + 1]), 0x88));
      const __m256i val = pick32(v, at), ind = pick32(i, at);
      __m256i* o = reinterpret_cast<__m256i*>(out + 32 * b + j0);
      _mm256_storeu_si256(o, _mm256_unpacklo_epi32(val, ind));
      _mm256_storeu_si256(o + 1, _mm256_unpackhi_epi32(val, ind));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Merges: keys of each run (checked sorted on the way), pairwise rounds of bitonic merges
// in registers, then the pairs in key order.

// Lanes [0, count) set (count clamped to [0, 4] by the compare).
SORT_AVX2_INLINE __m256i first_lanes(int64_t count) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), _mm256_set_epi64x(3, 2, 1, 0));
}

SORT_AVX2_INLINE __m256i load_lanes(const int64_t* p, __m256i mask) {
  return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), mask);
}

// Keys of four pairs as 64-bit lanes: the order key of the low dword (the value) shifted
// up, the position below; the high dwords' keys are discarded by the shift.
SORT_AVX2_INLINE __m256i pair_keys(__m256i pairs, __m256i pos) {
  return _mm256_or_si256(_mm256_slli_epi64(order_keys(pairs), 32), pos);
}

// Collects in `bad` the lanes of `k` below the key before them ([prev3 k0 k1 k2] > k).
SORT_AVX2_INLINE void check_order(__m256i k, __m256i& prev, __m256i& bad) {
  const __m256i t = _mm256_permute2x128_si256(prev, k, 0x21);
  bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(_mm256_alignr_epi8(k, t, 8), k));
  prev = k;
}

// Keys of pairs p[0, len) at positions pos0 + k into keys[0, len); false if the run is not
// sorted (keys must increase: equal order keys are in position order).
SORT_AVX2 bool run_keys(const Pair* p, int64_t len, uint32_t pos0, int64_t* keys) {
  const __m256i step = _mm256_set1_epi64x(4);
  __m256i pos = _mm256_add_epi64(_mm256_set1_epi64x(pos0), _mm256_set_epi64x(3, 2, 1, 0));
  __m256i prev = _mm256_set1_epi64x(INT64_MIN);
  __m256i bad = _mm256_setzero_si256();
  int64_t k = 0;
  for (; k + 4 <= len; k += 4) {
    const __m256i key = pair_keys(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k)), pos);
    check_order(key, prev, bad);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys + k), key);
    pos = _mm256_add_epi64(pos, step);
  }
  if (k < len) {  // lanes past the run as kPad, which keeps the check quiet
    const __m256i m = first_lanes(len - k);
    const __m256i loaded = load_lanes(reinterpret_cast<const int64_t*>(p + k), m);
    const __m256i key = blend(_mm256_set1_epi64x(kPad), pair_keys(loaded, pos), m);
    check_order(key, prev, bad);
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(keys + k), m, key);
  }
  return _mm256_testz_si256(bad, bad);
}

// Merges sorted a[0, la) and b[0, lb) (la + lb <= 4 R) into out[0, la + lb) with one
// bitonic merge of 4 R keys: a ascending, padding, b descending. Reads and writes 4 R keys
// (those past la + lb are padding): the key buffers have kSlack keys of room at their ends,
// and merges run front to back, so whatever lands past the output is overwritten later.
// Plain loads and blends are cheaper than AVX2's masked loads.
template <int R, bool FULL>
SORT_AVX2_INLINE void merge_block_as(const int64_t* a, int64_t la, const int64_t* b, int64_t lb, int64_t* out) {
  constexpr int N = 4 * R;
  const __m256i pad = _mm256_set1_epi64x(kPad);
  const __m256i la_v = _mm256_set1_epi64x(la), lb_v = _mm256_set1_epi64x(lb);
  __m256i x[R];
#pragma GCC unroll 16
  for (int q = 0; q < R; ++q) {
    // Lane l of register q is position 4q + l: a[4q + l] below la, b[N - 1 - 4q - l] from
    // N - lb on, the padding between (none when la + lb = N).
    const int64_t from_b = N - 4 - 4 * q;
    __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + from_b));
    if (!FULL)
      vb = blend(pad, vb, _mm256_cmpgt_epi64(lb_v, _mm256_set_epi64x(from_b + 3, from_b + 2, from_b + 1, from_b)));
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 4 * q));
    const __m256i from_a = _mm256_cmpgt_epi64(la_v, _mm256_set_epi64x(4 * q + 3, 4 * q + 2, 4 * q + 1, 4 * q));
    x[q] = blend(_mm256_permute4x64_epi64(vb, 0x1B), va, from_a);
  }
  merge_network_store<R>(x, out);
}

template <int R>
SORT_AVX2_INLINE void merge_block(const int64_t* a, int64_t la, const int64_t* b, int64_t lb, int64_t* out) {
  // Whole chunks of long merges need no padding.
  if (la + lb == 4 * R) merge_block_as<R, true>(a, la, b, lb, out);
  else merge_block_as<R, false>(a, la, b, lb, out);
}

// out[k] = base[position in keys[k]], pairs moved as one 64-bit word. Scalar loads and
// stores beat AVX2's gather; unrolled, as the loop is bound by instruction throughput.
inline void gather_pairs(const Pair* base, const int64_t* keys, int64_t n, Pair* out) {
  const auto move = [&](int64_t k) {
    uint64_t w;
    std::memcpy(&w, base + static_cast<uint32_t>(keys[k]), sizeof w);
    std::memcpy(out + k, &w, sizeof w);
  };
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    move(k);
    move(k + 1);
    move(k + 2);
    move(k + 3);
  }
  for (; k < n; ++k) move(k);
}

// Chunks of 32 keys measured as fast as 16 or 64 (smaller networks, more split searches).
constexpr int kChunkRegs = 8;               // registers per bitonic merge of long runs
constexpr int64_t kChunk = 4 * kChunkRegs;  // keys per bitonic merge of long runs
constexpr int64_t kSlack = 64;              // room past the end of a key buffer (>= 4 R of any merge_block)

// How many of the c smallest keys of the merge of sorted a and b come from a.
int64_t split(const int64_t* a, int64_t na, const int64_t* b, int64_t nb, int64_t c) {
  // Binary search for the first i with a[i] > b[c - 1 - i]; the trip count depends only on
  // the bounds, and the data decide through conditional moves.
  int64_t lo = std::max<int64_t>(0, c - nb), len = std::min(c, na) - lo;
  while (len > 0) {
    const int64_t half = len / 2;
    const bool right = a[lo + half] < b[c - lo - half - 1];
    lo = right ? lo + half + 1 : lo;
    len = right ? len - half - 1 : half;
  }
  return lo;
}

SORT_AVX2 void merge2(const int64_t* a, int64_t na, const int64_t* b, int64_t nb, int64_t* out) {
  const int64_t n = na + nb;
  if (n <= 8) return merge_block<2>(a, na, b, nb, out);
  if (n <= 16) return merge_block<4>(a, na, b, nb, out);
  if (n <= 32) return merge_block<8>(a, na, b, nb, out);
  if (n <= 64) return merge_block<16>(a, na, b, nb, out);
  // Long runs: chunks of the output, each the merge of the slices of a and b that the
  // split points name.
  int64_t i0 = 0;
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t c1 = std::min(c + kChunk, n);
    const int64_t i1 = c1 == n ? na : split(a, na, b, nb, c1);
    merge_block<kChunkRegs>(a + i0, i1 - i0, b + (c - i0), (c1 - c) - (i1 - i0), out + c);
    i0 = i1;
  }
}

}  // namespace

bool compiled() { return true; }

SORT_AVX2 void sort32(const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out) {
  sort32_in_groups<64>(src, idx32, idx64, n, out, sort32x2);
}

SORT_AVX2 bool merge_sorted_runs(const Pair* pairs, const int64_t* starts, size_t runs, Pair* out) {
  const int64_t first = starts[0], total = starts[runs] - first;
  if (runs == 1) {  // nothing to merge: the reference copies the run as it is
    if (total > 0) std::memcpy(out, pairs + first, static_cast<size_t>(total) * sizeof(Pair));
    return true;
  }
  return merge_in_rounds<int64_t>(pairs, starts, runs, out, kSlack, run_keys, merge2, gather_pairs);
}

}  // namespace pypto_golden::sim::sort_kernels::avx2

#else  // no AVX2 code in this build

namespace pypto_golden::sim::sort_kernels::avx2 {
bool compiled() { return false; }
void sort32(const float*, const int32_t*, const int64_t*, int64_t, Pair*) {}
bool merge_sorted_runs(const Pair*, const int64_t*, size_t, Pair*) { return false; }
}  // namespace pypto_golden::sim::sort_kernels::avx2

#endif
