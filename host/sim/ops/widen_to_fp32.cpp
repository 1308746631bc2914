#include "sim/ops/widen_to_fp32.h"

#include "sim/tensor_copy.h"
#include "tensor/float8.h"

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace pypto_golden::sim::ops {
namespace {

template <typename T>
void widen_row_scalar(const T* s, float* d, int64_t n) {
  for (int64_t c = 0; c < n; ++c) d[c] = static_cast<float>(s[c]);
}

// The compiler leaves the loop above scalar at -O2; AVX2 converts 8 bytes at once.
template <typename T>
__attribute__((target("avx2"))) void widen_row_avx2(const T* s, float* d, int64_t n) {
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + c));
    const __m256i ints = std::is_signed<T>::value ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    _mm256_storeu_ps(d + c, _mm256_cvtepi32_ps(ints));
  }
  for (; c < n; ++c) d[c] = static_cast<float>(s[c]);
}

template <typename T>
void widen(const at::Tensor& src, const at::Tensor& dst) {
  static const auto row = __builtin_cpu_supports("avx2") ? &widen_row_avx2<T> : &widen_row_scalar<T>;
  const T* s = static_cast<const T*>(src.const_data_ptr());
  float* d = dst.mutable_data_ptr<float>();
  const int64_t n = src.size(-1);
  for_each_row(dst, src, [&](int64_t d_off, int64_t s_off) { row(s + s_off, d + d_off, n); });
}

// BF16 is the upper half of an FP32: widening is a 16-bit shift, every pattern exact (NaN
// payloads too, as c10's conversion). ATen's copy converts BF16 through a generic loop at a
// few elements a cycle; a BF16 operand of every matmul and pl.cast went through it.
void widen_bf16_row_scalar(const uint16_t* s, float* d, int64_t n) {
  for (int64_t c = 0; c < n; ++c) {
    const uint32_t bits = static_cast<uint32_t>(s[c]) << 16;
    std::memcpy(d + c, &bits, sizeof bits);
  }
}

__attribute__((target("avx2"))) void widen_bf16_row_avx2(const uint16_t* s, float* d, int64_t n) {
  int64_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m256i halves = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c));
    const __m256i lo = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(halves)), 16);
    const __m256i hi = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(halves, 1)), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c + 8), hi);
  }
  widen_bf16_row_scalar(s + c, d + c, n - c);
}

void widen_bf16(const at::Tensor& src, const at::Tensor& dst) {
  static const auto row = __builtin_cpu_supports("avx2") ? &widen_bf16_row_avx2 : &widen_bf16_row_scalar;
  const auto* s = static_cast<const uint16_t*>(src.const_data_ptr());
  float* d = dst.mutable_data_ptr<float>();
  const int64_t n = src.size(-1);
  for_each_row(dst, src, [&](int64_t d_off, int64_t s_off) { row(s + s_off, d + d_off, n); });
}

// An 8-bit float: each of its 256 bit patterns as FP32, converted once by c10 (the
// conversion ATen's copy makes, NaN bits included).
template <typename F8>
void widen_fp8(const at::Tensor& src, const at::Tensor& dst) {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int b = 0; b < 256; ++b) t[static_cast<size_t>(b)] = static_cast<float>(F8(static_cast<uint8_t>(b), F8::from_bits()));
    return t;
  }();
  const auto* s = static_cast<const uint8_t*>(src.const_data_ptr());
  float* d = dst.mutable_data_ptr<float>();
  const int64_t n = src.size(-1);
  for_each_row(dst, src, [&](int64_t d_off, int64_t s_off) {
    for (int64_t c = 0; c < n; ++c) d[d_off + c] = table[s[s_off + c]];
  });
}

// The widening for `st`, or null.
using Widen = void (*)(const at::Tensor&, const at::Tensor&);
Widen widening(c10::ScalarType st) {
  switch (st) {
    case at::kChar: return &widen<int8_t>;
    case at::kByte: return &widen<uint8_t>;
    case at::kBFloat16: return &widen_bf16;
#if PYPTO_HAS_FLOAT8
    case at::ScalarType::Float8_e4m3fn: return &widen_fp8<c10::Float8_e4m3fn>;
    case at::ScalarType::Float8_e5m2: return &widen_fp8<c10::Float8_e5m2>;
#endif
#if PYPTO_HAS_FLOAT8_E8M0
    case at::ScalarType::Float8_e8m0fnu: return &widen_fp8<c10::Float8_e8m0fnu>;
#endif
    default: return nullptr;
  }
}

}  // namespace

bool widen_to_fp32(const at::Tensor& src, const at::Tensor& dst) {
  const Widen widen_to = widening(src.scalar_type());
  if (widen_to == nullptr || src.dim() == 0 || src.dim() > kMaxRowRank ||
      (src.size(-1) > 1 && src.stride(-1) != 1) || dst.scalar_type() != at::kFloat || !dst.is_contiguous() ||
      !dst.sizes().equals(src.sizes()))
    return false;
  if (src.numel() == 0) return true;  // an empty tensor's data pointer may be null
  widen_to(src, dst);
  return true;
}

void copy_widening(const at::Tensor& src, const at::Tensor& dst) {
  if (!widen_to_fp32(src, dst)) dst.copy_(src);
}

}  // namespace pypto_golden::sim::ops
