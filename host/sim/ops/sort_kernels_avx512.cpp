// AVX-512 sort kernels. Only AVX-512F is used, enabled per function with target attributes
// so the rest of the build stays generic; sort_kernels.cpp calls these only after a CPU
// check.
//
// The reference orders by uint64 keys: a transform of the value (descending, NaN first,
// -0 == +0) in the high half and the position in the low half, so all keys of a sort are
// distinct and every correct sorting method yields the same permutation. That is what lets
// these kernels use sorting networks instead of the reference's algorithms and keys of
// their own (same order, cheaper to compute): on sorted runs the reference's merge is
// exact too, and runs that are not sorted are left to the reference.
#include "sim/ops/sort_kernels_avx512.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own `__Y = __Y` idiom
// (GCC bug 105593) wherever the intrinsics are inlined.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "sim/ops/sort_kernel_drivers.h"

#include <algorithm>
#include <cstring>
#include <vector>

#define SORT_AVX512 __attribute__((target("avx512f")))
#define SORT_AVX512_INLINE inline __attribute__((target("avx512f"), always_inline))

namespace pypto_golden::sim::sort_kernels::avx512 {
namespace {

constexpr uint64_t kPad = ~uint64_t(0);  // above every key (order keys are <= 0xFF7FFFFF)

// Order keys of 16 float bit patterns: a uint32 per value whose ascending order is the
// reference key's (descending values, -0 == +0, NaN first), though not its bits: only the
// order matters to the networks. 0x7FFFFFFF - t, where t is the value as a two's complement
// integer (sign-magnitude converted, so -0 -> 0), ranges over [0x007FFFFF, 0xFF7FFFFF];
// NaN -> 0.
SORT_AVX512_INLINE __m512i order_keys(__m512i u) {
  const __m512i low31 = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512i m = _mm512_srai_epi32(u, 31);                           // 0 or -1 by sign
  const __m512i x = _mm512_ternarylogic_epi32(u, low31, m, 0x6A);       // (u & low31) ^ m
  const __m512 f = _mm512_castsi512_ps(u);
  const __mmask16 number = _mm512_cmp_ps_mask(f, f, _CMP_ORD_Q);
  return _mm512_maskz_add_epi32(number, _mm512_sub_epi32(low31, x), m);  // low31 - (x - m)
}

// Compare-exchange of whole registers: a gets the lane-wise minimum.
SORT_AVX512_INLINE void cx(__m512i& a, __m512i& b) {
  const __m512i lo = _mm512_min_epu64(a, b);
  b = _mm512_max_epu64(a, b);
  a = lo;
}

// The lower / upper of a compare-exchange in an ascending (or descending) network.
template <bool DESCENDING>
SORT_AVX512_INLINE __m512i lower(__m512i x, __m512i y) {
  return DESCENDING ? _mm512_max_epu64(x, y) : _mm512_min_epu64(x, y);
}

template <bool DESCENDING>
SORT_AVX512_INLINE __m512i upper(__m512i x, __m512i y) {
  return DESCENDING ? _mm512_min_epu64(x, y) : _mm512_max_epu64(x, y);
}

// The last three half-cleaner stages of a bitonic merge (strides 4, 2, 1 within a
// register) on two registers at once: each stage shuffles the partners of both into the
// same lanes of two vectors and takes min and max, which needs fewer instructions than
// one shuffle and a masked min / max per register and stage. A last shuffle restores the
// element order.
template <bool DESCENDING = false>
SORT_AVX512_INLINE void merge_in_registers(__m512i& a, __m512i& b) {
  const auto lo = lower<DESCENDING>;
  const auto hi = upper<DESCENDING>;
  // Stride 4: the low 256 bits of a and b against their high ones.
  __m512i x = _mm512_shuffle_i64x2(a, b, 0x44), y = _mm512_shuffle_i64x2(a, b, 0xEE);
  __m512i l = lo(x, y), h = hi(x, y);  // l = [a0-3 | b0-3], h = [a4-7 | b4-7]
  // Stride 2.
  x = _mm512_permutex2var_epi64(l, _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), h);
  y = _mm512_permutex2var_epi64(l, _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2), h);
  l = lo(x, y);  // [a0 a1 a4 a5 | b0 b1 b4 b5]
  h = hi(x, y);  // [a2 a3 a6 a7 | b2 b3 b6 b7]
  // Stride 1.
  x = _mm512_unpacklo_epi64(l, h);
  y = _mm512_unpackhi_epi64(l, h);
  l = lo(x, y);  // [a0 a2 a4 a6 | b0 b2 b4 b6]
  h = hi(x, y);  // [a1 a3 a5 a7 | b1 b3 b5 b7]
  a = _mm512_permutex2var_epi64(l, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), h);
  b = _mm512_permutex2var_epi64(l, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), h);
}

// Bitonic merge of the bitonic sequence x[0, R) (8 R keys) into ascending (or descending)
// order: half-cleaners across registers, then inside each.
template <int R, bool DESCENDING = false>
SORT_AVX512_INLINE void merge_network(__m512i* x) {
#pragma GCC unroll 4
  for (int s = R / 2; s >= 1; s /= 2) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      if ((r & s) == 0) {
        if (DESCENDING) cx(x[r + s], x[r]);
        else cx(x[r], x[r + s]);
      }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; r += 2) merge_in_registers<DESCENDING>(x[r], x[r + 1]);
}

// ---------------------------------------------------------------------------------------
// sort32: four 32-key blocks at a time in 16 registers. Register r holds the keys with
// network index bits 0..3 = r; lane 2b + h holds block b's key with index bit 4 = h. The
// sort is the bitonic network in its "flip" form (every comparator ascending), so 14 of its
// 15 stages compare whole registers and only one needs a lane shuffle.

// Network stage: compare i with i ^ mask (mask < 16) for the i whose bit `top` is clear.
template <int MASK, int TOP>
SORT_AVX512_INLINE void vertical_stage(__m512i* x) {
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r)
    if ((r & TOP) == 0) cx(x[r], x[r ^ MASK]);
}

SORT_AVX512_INLINE void sort32x4_network(__m512i* x) {
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
  // Flip of all five index bits: partner of (r, lane) is (15 - r, lane ^ 1); even lanes
  // (index bit 4 clear) are the lower index and keep the minimum.
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    const __m512i p = _mm512_shuffle_epi32(x[15 - r], _MM_PERM_BADC);
    const __m512i lo = _mm512_min_epu64(x[r], p), hi = _mm512_max_epu64(x[r], p);
    x[r] = _mm512_mask_blend_epi64(0xAA, lo, hi);
    x[15 - r] = _mm512_shuffle_epi32(_mm512_mask_blend_epi64(0xAA, hi, lo), _MM_PERM_BADC);
  }
  vertical_stage<8, 8>(x);
  vertical_stage<4, 4>(x);
  vertical_stage<2, 2>(x);
  vertical_stage<1, 1>(x);
}

// Sorts blocks [0, 4) of src / idx (128 elements) into out.
SORT_AVX512 void sort32x4(const float* src, const int32_t* idx32, const int64_t* idx64, Pair* out) {
  __m512i s[8], d[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) {
    s[k] = _mm512_loadu_si512(src + 16 * k);
    d[k] = order_keys(s[k]);
  }
  // Keys into the network layout: a 4x4 transpose of 128-bit chunks brings 4 keys of each
  // block into one vector, then unpacking with the positions makes two registers of it.
  __m512i x[16];
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const __m512i t0 = _mm512_shuffle_i32x4(d[h], d[2 + h], 0x44);
    const __m512i t1 = _mm512_shuffle_i32x4(d[h], d[2 + h], 0xEE);
    const __m512i t2 = _mm512_shuffle_i32x4(d[4 + h], d[6 + h], 0x44);
    const __m512i t3 = _mm512_shuffle_i32x4(d[4 + h], d[6 + h], 0xEE);
    const __m512i e[4] = {_mm512_shuffle_i32x4(t0, t2, 0x88), _mm512_shuffle_i32x4(t0, t2, 0xDD),
                          _mm512_shuffle_i32x4(t1, t3, 0x88), _mm512_shuffle_i32x4(t1, t3, 0xDD)};
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const int p = 16 * h + 4 * c;  // chunk c of each block: positions p..p+3
      const __m512i pos = _mm512_set_epi32(p + 3, p + 2, p + 1, p, p + 3, p + 2, p + 1, p, p + 3, p + 2, p + 1, p,
                                           p + 3, p + 2, p + 1, p);
      x[8 * h + 2 * c] = _mm512_unpacklo_epi32(pos, e[c]);
      x[8 * h + 2 * c + 1] = _mm512_unpackhi_epi32(pos, e[c]);
    }
  }
  sort32x4_network(x);
  // Sorted position j of block b sits in register j & 15, lane 2b + (j >> 4). Gather the
  // low dwords of register pairs, then an 8x8 transpose of those dword pairs gives, per
  // lane, the 16 positions in order.
  const __m512i low_dwords = _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0);
  __m512i t[8];
#pragma GCC unroll 8
  for (int m = 0; m < 8; ++m) t[m] = _mm512_permutex2var_epi32(x[2 * m], low_dwords, x[2 * m + 1]);
  __m512i u[8];
#pragma GCC unroll 4
  for (int m = 0; m < 8; m += 2) {
    u[m] = _mm512_unpacklo_epi64(t[m], t[m + 1]);
    u[m + 1] = _mm512_unpackhi_epi64(t[m], t[m + 1]);
  }
  const __m512i lo_pairs = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i hi_pairs = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
#pragma GCC unroll 2
  for (int m = 0; m < 2; ++m) {
    const __m512i a0 = u[m], a1 = u[m + 2], b0 = u[m + 4], b1 = u[m + 6];
    t[m] = _mm512_permutex2var_epi64(a0, lo_pairs, a1);
    t[m + 2] = _mm512_permutex2var_epi64(a0, hi_pairs, a1);
    t[m + 4] = _mm512_permutex2var_epi64(b0, lo_pairs, b1);
    t[m + 6] = _mm512_permutex2var_epi64(b0, hi_pairs, b1);
  }
  // Last exchange (row bit 2): 256-bit halves. pos[L] holds lane L's 16 positions.
  __m512i pos[8];
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    pos[m] = _mm512_shuffle_i64x2(t[m], t[m + 4], 0x44);
    pos[m + 4] = _mm512_shuffle_i64x2(t[m], t[m + 4], 0xEE);
  }
  // Per block: values and index lanes picked by position, then interleaved into pairs.
  const __m512i even_dwords = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i first8 = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i last8 = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
#pragma GCC unroll 4
  for (int b = 0; b < 4; ++b) {
    __m512i i0, i1;
    if (idx64) {
      const int64_t* ip = idx64 + 32 * b;
      i0 = _mm512_permutex2var_epi32(_mm512_loadu_si512(ip), even_dwords, _mm512_loadu_si512(ip + 8));
      i1 = _mm512_permutex2var_epi32(_mm512_loadu_si512(ip + 16), even_dwords, _mm512_loadu_si512(ip + 24));
    } else {
      i0 = _mm512_loadu_si512(idx32 + 32 * b);
      i1 = _mm512_loadu_si512(idx32 + 32 * b + 16);
    }
    float* o = reinterpret_cast<float*>(out + 32 * b);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m512i at = pos[2 * b + h];
      const __m512i v = _mm512_permutex2var_epi32(s[2 * b], at, s[2 * b + 1]);
      const __m512i i = _mm512_permutex2var_epi32(i0, at, i1);
      _mm512_storeu_si512(o + 32 * h, _mm512_permutex2var_epi32(v, first8, i));
      _mm512_storeu_si512(o + 32 * h + 16, _mm512_permutex2var_epi32(v, last8, i));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Merges: keys of each run (checked sorted on the way), pairwise rounds of bitonic merges
// in registers, then the pairs in key order.

// Keys of pairs p[0, len) at positions pos0 + k into keys[0, len); false if the run is
// not sorted (the order keys must not decrease: equal ones are in position order).
SORT_AVX512 bool run_keys(const Pair* p, int64_t len, uint32_t pos0, uint64_t* keys) {
  const __m512i values = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i first8 = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i last8 = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  __m512i pos = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(pos0)),
                                 _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  const __m512i step = _mm512_set1_epi32(16);
  __m512i prev = _mm512_setzero_si512();
  __mmask16 bad = 0;
  for (int64_t k = 0; k < len; k += 16) {
    // Sixteen values (the even dwords of sixteen pairs), then keys = (order key, position).
    const __mmask16 m = static_cast<__mmask16>(len - k >= 16 ? 0xFFFF : (1u << (len - k)) - 1);
    const __m512i a = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m), p + k);
    const __m512i b = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m >> 8), p + (len - k > 8 ? k + 8 : k));
    // Lanes past the run as the largest key, which keeps the order check quiet.
    const __m512i d =
        _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), m, order_keys(_mm512_permutex2var_epi32(a, values, b)));
    bad |= _mm512_cmpgt_epu32_mask(_mm512_alignr_epi32(d, prev, 15), d);
    prev = d;
    _mm512_mask_storeu_epi64(keys + k, static_cast<__mmask8>(m), _mm512_permutex2var_epi32(pos, first8, d));
    _mm512_mask_storeu_epi64(keys + k + 8, static_cast<__mmask8>(m >> 8), _mm512_permutex2var_epi32(pos, last8, d));
    pos = _mm512_add_epi32(pos, step);
  }
  return bad == 0;
}

SORT_AVX512_INLINE __mmask8 first_lanes(int64_t count) {
  return static_cast<__mmask8>((1u << std::clamp<int64_t>(count, 0, 8)) - 1);
}

// Merges sorted a[0, la) and b[0, lb) (la + lb <= 8 * R) into out[0, n_out) with one
// bitonic merge of 8 * R keys: a ascending, padding, b descending. Reads up to 8 * R keys
// from a and b (masked: lanes past the runs are not loaded, but the addresses must be inside
// the buffer).
template <int R>
SORT_AVX512_INLINE void merge_block(const uint64_t* a, int64_t la, const uint64_t* b, int64_t lb, uint64_t* out,
                                    int64_t n_out) {
  constexpr int N = 8 * R;
  const __m512i reverse = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  const __m512i pad = _mm512_set1_epi64(static_cast<long long>(kPad));
  __m512i x[R];
#pragma GCC unroll 16
  for (int q = 0; q < R; ++q) {
    // Lane l of register q is position 8q + l: a[8q + l] below la, b[N - 1 - 8q - l] from
    // N - lb on, the padding between.
    const int64_t from_b = N - 8 - 8 * q;
    const __m512i vb = _mm512_mask_loadu_epi64(pad, first_lanes(lb - from_b), b + from_b);
    x[q] = _mm512_mask_loadu_epi64(_mm512_permutexvar_epi64(reverse, vb), first_lanes(la - 8 * q), a + 8 * q);
  }
  merge_network<R>(x);
#pragma GCC unroll 16
  for (int q = 0; q < R; ++q) {
    if (8 * q + 8 <= n_out) _mm512_storeu_si512(out + 8 * q, x[q]);
    else _mm512_mask_storeu_epi64(out + 8 * q, first_lanes(n_out - 8 * q), x[q]);
  }
}

// out[k] = base[position in keys[k]], pairs moved as one 64-bit word. Scalar loads and
// stores beat the hardware gather; unrolled, as the loop is bound by instruction throughput.
inline void gather_pairs(const Pair* base, const uint64_t* keys, int64_t n, Pair* out) {
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

constexpr int64_t kChunk = 128;   // keys per bitonic merge of long runs
constexpr int64_t kSlack = kChunk;  // readable keys past the end of a key buffer

// How many of the c smallest keys of the merge of sorted a and b come from a.
int64_t split(const uint64_t* a, int64_t na, const uint64_t* b, int64_t nb, int64_t c) {
  // Binary search for the first i with a[i] > b[c - 1 - i]; the trip count depends only on
  // the bounds, and the data decide through conditional moves (no mispredicted branches).
  int64_t lo = std::max<int64_t>(0, c - nb), len = std::min(c, na) - lo;
  while (len > 0) {
    const int64_t half = len / 2;
    const bool right = a[lo + half] < b[c - lo - half - 1];
    lo = right ? lo + half + 1 : lo;
    len = right ? len - half - 1 : half;
  }
  return lo;
}

SORT_AVX512 void merge2(const uint64_t* a, int64_t na, const uint64_t* b, int64_t nb, uint64_t* out) {
  const int64_t n = na + nb;
  if (n <= 16) return merge_block<2>(a, na, b, nb, out, n);
  if (n <= 32) return merge_block<4>(a, na, b, nb, out, n);
  if (n <= 64) return merge_block<8>(a, na, b, nb, out, n);
  // Long runs: chunks of the output, each the merge of the slices of a and b that the
  // split points name.
  int64_t i0 = 0;
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t c1 = std::min(c + kChunk, n);
    const int64_t i1 = c1 == n ? na : split(a, na, b, nb, c1);
    merge_block<16>(a + i0, i1 - i0, b + (c - i0), (c1 - c) - (i1 - i0), out + c, c1 - c);
    i0 = i1;
  }
}

// Keys of pairs run[from, min(len, from + 16)) (positions pos0 + from + k) into two
// registers, lanes past the run as kPad; `unsorted` collects the lanes whose order key is
// below the one before (`prev`: the previous call's keys on the run).
SORT_AVX512_INLINE void keys16(const Pair* run, int64_t len, int64_t from, uint32_t pos0, __m512i& prev,
                               __mmask16& unsorted, __m512i& lo, __m512i& hi) {
  const __m512i values = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i first8 = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i last8 = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  const int64_t count = len - from;
  const __m512i pos = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(pos0 + from)),
                                       _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  const __mmask16 m = static_cast<__mmask16>((1u << std::clamp<int64_t>(count, 0, 16)) - 1);
  // Addresses stay inside the run; masked-off lanes are not read.
  const __m512i a = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m), run + (count > 0 ? from : 0));
  const __m512i b = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m >> 8), run + (count > 8 ? from + 8 : 0));
  const __m512i d =
      _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), m, order_keys(_mm512_permutex2var_epi32(a, values, b)));
  unsorted |= _mm512_cmpgt_epu32_mask(_mm512_alignr_epi32(d, prev, 15), d);
  prev = d;
  // Pad lanes: order key ~0 and position ~0, i.e. kPad.
  const __m512i pos_or_pad = _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), m, pos);
  lo = _mm512_permutex2var_epi32(pos_or_pad, first8, d);
  hi = _mm512_permutex2var_epi32(pos_or_pad, last8, d);
}

// Registers q of a run in reverse order, each reversed: the run descending.
template <int RR>
SORT_AVX512_INLINE void reverse_run(__m512i* x) {
  const __m512i reverse = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512i t[RR];
#pragma GCC unroll 4
  for (int q = 0; q < RR; ++q) t[q] = _mm512_permutexvar_epi64(reverse, x[RR - 1 - q]);
#pragma GCC unroll 4
  for (int q = 0; q < RR; ++q) x[q] = t[q];
}

// 2-4 runs of at most 8 RR pairs each, merged in registers: each run padded to 8 RR keys,
// runs 0+1 merged ascending and runs 2+3 descending (padding for a missing run 3), which
// together are bitonic for the final merge. False if a run is not sorted.
template <int RR>
SORT_AVX512_INLINE bool merge_small(const Pair* pairs, const int64_t* starts, size_t runs, Pair* out) {
  constexpr int L = 8 * RR;
  const int64_t first = starts[0], total = starts[runs] - first;
  __m512i x[4 * RR];
  __mmask16 unsorted = 0;
#pragma GCC unroll 4
  for (size_t r = 0; r < 4; ++r) {
    // Runs past the last one are all padding.
    const int64_t len = r < runs ? starts[r + 1] - starts[r] : 0;
    const int64_t lo = r < runs ? starts[r] - first : 0;
    const Pair* run = pairs + first + lo;
    __m512i prev = _mm512_setzero_si512();
    if constexpr (RR == 1) {
      __m512i none;
      keys16(run, len, 0, static_cast<uint32_t>(lo), prev, unsorted, x[r], none);
    } else {
#pragma GCC unroll 2
      for (int q = 0; q < RR; q += 2)
        keys16(run, len, 8 * q, static_cast<uint32_t>(lo), prev, unsorted, x[r * RR + q], x[r * RR + q + 1]);
    }
  }
  if (unsorted) return false;
  reverse_run<RR>(x + RR);
  merge_network<2 * RR>(x);
  if (runs > 2) {
    reverse_run<RR>(x + 3 * RR);
    merge_network<2 * RR, true>(x + 2 * RR);
    merge_network<4 * RR>(x);
  }
  alignas(64) uint64_t keys[4 * L];
#pragma GCC unroll 16
  for (int q = 0; q < 4 * RR; ++q) _mm512_store_si512(keys + 8 * q, x[q]);
  gather_pairs(pairs + first, keys, total, out);
  return true;
}

}  // namespace

bool compiled() { return true; }

SORT_AVX512 void sort32(const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out) {
  sort32_in_groups<128>(src, idx32, idx64, n, out, sort32x4);
}

SORT_AVX512 bool merge_sorted_runs(const Pair* pairs, const int64_t* starts, size_t runs, Pair* out) {
  const int64_t first = starts[0], total = starts[runs] - first;
  if (runs == 1) {  // nothing to merge: the reference copies the run as it is
    if (total > 0) std::memcpy(out, pairs + first, static_cast<size_t>(total) * sizeof(Pair));
    return true;
  }
  if (runs <= 4) {
    int64_t longest = 0;
    for (size_t r = 0; r < runs; ++r) longest = std::max(longest, starts[r + 1] - starts[r]);
    if (longest <= 8) return merge_small<1>(pairs, starts, runs, out);
    if (longest <= 16) return merge_small<2>(pairs, starts, runs, out);
    if (longest <= 32) return merge_small<4>(pairs, starts, runs, out);
  }
  return merge_in_rounds<uint64_t>(pairs, starts, runs, out, kSlack, run_keys, merge2, gather_pairs);
}

}  // namespace pypto_golden::sim::sort_kernels::avx512

#else  // no AVX-512 code in this build

namespace pypto_golden::sim::sort_kernels::avx512 {
bool compiled() { return false; }
void sort32(const float*, const int32_t*, const int64_t*, int64_t, Pair*) {}
bool merge_sorted_runs(const Pair*, const int64_t*, size_t, Pair*) { return false; }
}  // namespace pypto_golden::sim::sort_kernels::avx512

#endif
