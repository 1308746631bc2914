// Scalar sort kernels (the reference every other path must match bit for bit), the choice
// of ISA and the dispatch to the AVX-512 and AVX2 kernels.
#include "sim/ops/sort_kernels.h"

#include "sim/ops/sort_kernels_avx2.h"
#include "sim/ops/sort_kernels_avx512.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim::sort_kernels {
namespace {

// Sort keys: ascending uint64 order = descending value order with NaN first and -0 == +0,
// ties broken by the low 32 bits (a position), which makes every order stable.
inline uint64_t sort_key(float v, uint32_t position) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  // Branch-free (signs and NaNs are data): -0 as +0, then the usual order-preserving flip
  // (negative: all bits, positive: the sign bit), inverted for descending, NaN -> 0.
  u &= 0u - static_cast<uint32_t>(u != 0x80000000u);
  const uint32_t neg = 0u - (u >> 31);
  const uint32_t desc = ~(u ^ (neg | 0x80000000u));
  // NaN -> 1 (first); no key is 0 or ~0, which the merges use as sentinels.
  const uint32_t nan = 0u - static_cast<uint32_t>(v != v);
  return (static_cast<uint64_t>((desc & ~nan) | (nan & 1u)) << 32) | position;
}

inline void compare_exchange(uint64_t& a, uint64_t& b) {
  const uint64_t lo = a < b ? a : b;
  const uint64_t hi = a < b ? b : a;
  a = lo;
  b = hi;
}

// Branch-free bitonic sorting network for 32 keys (ascending), unrolled at compile time.
template <int SIZE, int STRIDE>
inline void bitonic_stage(uint64_t* k) {
#pragma GCC unroll 32
  for (int i = 0; i < 32; ++i) {
    const int j = i ^ STRIDE;
    if (j > i) {
      if ((i & SIZE) == 0) compare_exchange(k[i], k[j]);
      else compare_exchange(k[j], k[i]);
    }
  }
  if constexpr (STRIDE > 1) bitonic_stage<SIZE, STRIDE / 2>(k);
}

template <int SIZE>
inline void bitonic_sizes(uint64_t* k) {
  bitonic_stage<SIZE, SIZE / 2>(k);
  if constexpr (SIZE < 32) bitonic_sizes<SIZE * 2>(k);
}

void sort32_scalar(const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out) {
  uint64_t keys[32];
  for (int64_t base = 0; base < n; base += 32) {
    const float* v = src + base;
    for (int k = 0; k < 32; ++k) keys[k] = sort_key(v[k], static_cast<uint32_t>(k));
    bitonic_sizes<2>(keys);
    Pair* dst = out + base;
    for (int k = 0; k < 32; ++k) {
      const int64_t at = base + static_cast<int64_t>(keys[k] & 31u);
      dst[k].v = src[at];
      dst[k].bits = static_cast<uint32_t>(idx64 ? idx64[at] : idx32[at]);
    }
  }
}

constexpr uint64_t kLowSentinel = 0;              // below every key
constexpr uint64_t kHighSentinel = ~uint64_t(0);  // above every key

// Merges the ascending key runs a[0..na) and b[0..nb) into out[0..na+nb). Each run has a
// kLowSentinel at [-1] and a kHighSentinel at [n]. The smallest half is merged from the
// front and the largest from the back in the same loop: two independent dependency chains,
// no branches on the data.
void merge2(const uint64_t* a, int64_t na, const uint64_t* b, int64_t nb, uint64_t* out) {
  const int64_t n = na + nb, front = n / 2;
  const uint64_t *af = a, *bf = b, *ab = a + na - 1, *bb = b + nb - 1;
  uint64_t *of = out, *ob = out + n - 1;
  for (int64_t k = 0; k < front; ++k) {
    const uint64_t x = *af, y = *bf;
    const bool take_b = y < x;
    *of++ = take_b ? y : x;
    bf += take_b;
    af += !take_b;
    const uint64_t p = *ab, q = *bb;
    const bool take_q = q > p;
    *ob-- = take_q ? q : p;
    bb -= take_q;
    ab -= !take_q;
  }
  if (n - front > front) {  // odd total: one more from the back
    const uint64_t p = *ab, q = *bb;
    *ob = q > p ? q : p;
  }
}

// The reference merge: pairwise rounds of merge2 over keys with sentinels, then the pairs
// in key order. On runs that are not sorted its output is whatever merge2 makes of them,
// which the other paths reproduce by falling back to this one.
void merge_runs_scalar(const Pair* pairs, const int64_t* starts, size_t runs, Pair* out) {
  static thread_local std::vector<uint64_t> buf;
  static thread_local std::vector<std::pair<int64_t, int64_t>> segs, next;  // (offset, length)
  const int64_t first = starts[0], total = starts[runs] - first;
  const int64_t span = total + 2 * static_cast<int64_t>(runs);  // room for the sentinels
  buf.resize(static_cast<size_t>(2 * span));
  uint64_t* cur = buf.data();
  uint64_t* alt = cur + span;
  segs.clear();
  int64_t off = 0;
  for (size_t r = 0; r < runs; ++r) {
    const int64_t lo = starts[r] - first, len = starts[r + 1] - starts[r];
    cur[off] = kLowSentinel;
    for (int64_t k = 0; k < len; ++k) cur[off + 1 + k] = sort_key(pairs[first + lo + k].v, static_cast<uint32_t>(lo + k));
    cur[off + 1 + len] = kHighSentinel;
    segs.emplace_back(off + 1, len);
    off += len + 2;
  }
  // Pairwise rounds: runs (0,1), (2,3), ... then the results, until one run remains.
  while (segs.size() > 1) {
    next.clear();
    off = 0;
    for (size_t r = 0; r < segs.size(); r += 2) {
      alt[off] = kLowSentinel;
      if (r + 1 < segs.size()) {
        merge2(cur + segs[r].first, segs[r].second, cur + segs[r + 1].first, segs[r + 1].second, alt + off + 1);
        const int64_t len = segs[r].second + segs[r + 1].second;
        next.emplace_back(off + 1, len);
        off += len + 1;
      } else {
        std::copy(cur + segs[r].first, cur + segs[r].first + segs[r].second, alt + off + 1);
        next.emplace_back(off + 1, segs[r].second);
        off += segs[r].second + 1;
      }
      alt[off++] = kHighSentinel;
    }
    std::swap(cur, alt);
    segs.swap(next);
  }
  const uint64_t* keys = cur + segs[0].first;
  for (int64_t k = 0; k < total; ++k) {
    // One 64-bit move per pair (a struct copy compiles to two 32-bit ones).
    uint64_t w;
    std::memcpy(&w, pairs + first + static_cast<int64_t>(keys[k] & 0xFFFFFFFFu), sizeof w);
    std::memcpy(out + k, &w, sizeof w);
  }
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Scalar: break;
  }
  return "scalar";
}

bool isa_supported(Isa isa) {
  if (isa == Isa::Scalar) return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (isa == Isa::Avx2) return avx2::compiled() && __builtin_cpu_supports("avx2");
  return avx512::compiled() && __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

Isa isa_from_env_value(const char* raw) {
  if (!raw) {
    if (isa_supported(Isa::Avx512)) return Isa::Avx512;
    return isa_supported(Isa::Avx2) ? Isa::Avx2 : Isa::Scalar;
  }
  const std::string v(raw);
  if (v == "auto") return isa_from_env_value(nullptr);
  // A forced AVX2 on a CPU without it runs the reference rather than faulting.
  if (v == "avx2") return isa_supported(Isa::Avx2) ? Isa::Avx2 : Isa::Scalar;
  if (v == "scalar") return Isa::Scalar;
  throw std::invalid_argument("PYPTO_SIM_SORT_ISA must be 'auto', 'avx2' or 'scalar' (unset means auto), got '" + v +
                              "'");
}

Isa active_isa() {
  // A bad value throws from every sort op (a throwing initialiser is retried next call).
  static const Isa isa = isa_from_env_value(std::getenv("PYPTO_SIM_SORT_ISA"));
  return isa;
}

namespace {

// Whether `isa` is AVX-512 and may run here (an unsupported request runs the scalar path
// rather than faulting on an illegal instruction).
bool use_avx512(Isa isa) {
  static const bool supported = isa_supported(Isa::Avx512);
  return isa == Isa::Avx512 && supported;
}

bool use_avx2(Isa isa) {
  static const bool supported = isa_supported(Isa::Avx2);
  return isa == Isa::Avx2 && supported;
}

}  // namespace

void sort32(Isa isa, const float* src, const int32_t* idx32, const int64_t* idx64, int64_t n, Pair* out) {
  if (use_avx512(isa)) avx512::sort32(src, idx32, idx64, n, out);
  else if (use_avx2(isa)) avx2::sort32(src, idx32, idx64, n, out);
  else sort32_scalar(src, idx32, idx64, n, out);
}

void merge_runs(Isa isa, const Pair* pairs, const int64_t* starts, size_t runs, Pair* out) {
  if (runs == 0) return;
  if (use_avx512(isa) && avx512::merge_sorted_runs(pairs, starts, runs, out)) return;
  if (use_avx2(isa) && avx2::merge_sorted_runs(pairs, starts, runs, out)) return;
  merge_runs_scalar(pairs, starts, runs, out);
}

}  // namespace pypto_golden::sim::sort_kernels
