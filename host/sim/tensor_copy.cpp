#include "sim/tensor_copy.h"

#include "sim/strided_view.h"

#include <ATen/ATen.h>

#include <cstring>

namespace pypto_golden::sim {
namespace {

// Rows shorter than this go to ATen, which vectorises across rows.
constexpr int64_t kMinRowBytes = 32;

bool rows_copyable(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.scalar_type() != src.scalar_type() || !dst.sizes().equals(src.sizes())) return false;
  const int64_t rank = dst.dim();
  if (rank == 0 || rank > kMaxRowRank) return false;
  if (dst.stride(rank - 1) != 1 && dst.size(rank - 1) != 1) return false;
  if (src.stride(rank - 1) != 1 && src.size(rank - 1) != 1) return false;
  return dst.size(rank - 1) * static_cast<int64_t>(dst.element_size()) >= kMinRowBytes ||
         (dst.is_contiguous() && src.is_contiguous());
}

}  // namespace

void copy_values(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.is_same(src)) return;
  if (shares_memory(dst, src)) {
    // The very same elements: nothing to copy.
    if (dst.const_data_ptr() == src.const_data_ptr() && dst.sizes().equals(src.sizes()) && dst.strides().equals(src.strides()))
      return;
    // Overlapping windows of one tensor (x[1:4] = x[0:3]): a tile is read whole before it
    // is written, so copy through a temporary (ATen refuses partial overlaps).
    copy_values(dst, src.clone());
    return;
  }
  if (!rows_copyable(dst, src)) {
    const_cast<at::Tensor&>(dst).copy_(src);
    return;
  }
  if (dst.numel() == 0) return;  // an empty tile's data pointer may be null: memcpy must not see it
  const int64_t rank = dst.dim();
  const int64_t elem = static_cast<int64_t>(dst.element_size());
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(src.const_data_ptr());
  if (dst.is_contiguous() && src.is_contiguous()) {
    std::memcpy(d, s, static_cast<size_t>(dst.numel() * elem));
    return;
  }
  const size_t row_bytes = static_cast<size_t>(dst.size(rank - 1) * elem);
  if (row_bytes == 0) return;
  for_each_row(dst, src, [&](int64_t d_off, int64_t s_off) { std::memcpy(d + d_off * elem, s + s_off * elem, row_bytes); });
}

}  // namespace pypto_golden::sim
