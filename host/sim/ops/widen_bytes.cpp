#include "sim/ops/widen_bytes.h"

#include "sim/tensor_copy.h"

#include <immintrin.h>

#include <cstdint>
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

}  // namespace

bool widen_bytes_to_fp32(const at::Tensor& src, const at::Tensor& dst) {
  const auto st = src.scalar_type();
  if ((st != at::kChar && st != at::kByte) || src.dim() == 0 || src.dim() > kMaxRowRank ||
      (src.size(-1) > 1 && src.stride(-1) != 1) || dst.scalar_type() != at::kFloat || !dst.is_contiguous() ||
      !dst.sizes().equals(src.sizes()))
    return false;
  if (src.numel() == 0) return true;  // an empty tensor's data pointer may be null
  if (st == at::kChar) widen<int8_t>(src, dst);
  else widen<uint8_t>(src, dst);
  return true;
}

}  // namespace pypto_golden::sim::ops
