#include "sim/ops/widen_bytes.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace pypto_golden::sim::ops {
namespace {

template <typename T>
void widen_rows_scalar(const T* src, const std::vector<int64_t>& starts, int64_t cols, float* dst) {
  for (size_t r = 0; r < starts.size(); ++r)
    for (int64_t c = 0; c < cols; ++c) dst[static_cast<int64_t>(r) * cols + c] = static_cast<float>(src[starts[r] + c]);
}

// The compiler leaves the loop above scalar at -O2; AVX2 converts 8 bytes at once.
template <typename T>
__attribute__((target("avx2"))) void widen_rows_avx2(const T* src, const std::vector<int64_t>& starts, int64_t cols,
                                                     float* dst) {
  for (size_t r = 0; r < starts.size(); ++r) {
    const T* s = src + starts[r];
    float* d = dst + static_cast<int64_t>(r) * cols;
    int64_t c = 0;
    for (; c + 8 <= cols; c += 8) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + c));
      const __m256i ints = std::is_signed<T>::value ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
      _mm256_storeu_ps(d + c, _mm256_cvtepi32_ps(ints));
    }
    for (; c < cols; ++c) d[c] = static_cast<float>(s[c]);
  }
}

template <typename T>
void widen_rows(const T* src, const std::vector<int64_t>& starts, int64_t cols, float* dst) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) widen_rows_avx2(src, starts, cols, dst);
  else widen_rows_scalar(src, starts, cols, dst);
}

}  // namespace

bool widen_bytes_to_fp32(const at::Tensor& src, const at::Tensor& dst) {
  const auto st = src.scalar_type();
  if ((st != at::kChar && st != at::kByte) || src.dim() == 0 || (src.size(-1) > 1 && src.stride(-1) != 1) ||
      dst.scalar_type() != at::kFloat || !dst.is_contiguous() || !dst.sizes().equals(src.sizes()))
    return false;
  const int64_t cols = src.size(-1), rows = cols == 0 ? 0 : src.numel() / cols;
  // Where each row starts: the leading axes walked in order, as dst lays them out.
  std::vector<int64_t> starts(static_cast<size_t>(rows));
  std::vector<int64_t> index(static_cast<size_t>(src.dim() - 1), 0);
  int64_t offset = 0;
  for (int64_t r = 0; r < rows; ++r) {
    starts[static_cast<size_t>(r)] = offset;
    for (int64_t axis = src.dim() - 2; axis >= 0; --axis) {
      const size_t k = static_cast<size_t>(axis);
      offset += src.stride(axis);
      if (++index[k] < src.size(axis)) break;
      offset -= src.stride(axis) * src.size(axis);
      index[k] = 0;
    }
  }
  float* d = dst.mutable_data_ptr<float>();
  if (st == at::kChar) widen_rows(static_cast<const int8_t*>(src.const_data_ptr()), starts, cols, d);
  else widen_rows(static_cast<const uint8_t*>(src.const_data_ptr()), starts, cols, d);
  return true;
}

}  // namespace pypto_golden::sim::ops
