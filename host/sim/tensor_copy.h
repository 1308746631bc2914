// Element copies between device tensor views of one dtype and shape. Kernels copy small
// tiles per loop iteration (loads, stores, writes into windows); ATen's copy_ sets up a
// TensorIterator for each, which costs more than the copy itself at tile sizes.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim {

// dst[...] = src[...]. Same dtype and shape: row by row with memcpy when both have unit-stride
// rows and do not overlap; anything else (dtype conversion, broadcasting, overlap, column
// gathers) goes through ATen's copy_.
void copy_values(const at::Tensor& dst, const at::Tensor& src);

// The most axes for_each_row walks.
constexpr int kMaxRowRank = 8;

// Calls row(dst_offset, src_offset), in elements from each tensor's data pointer, for every
// row (the last axis) of `dst` and `src`, which have the same sizes and 1..kMaxRowRank axes,
// the outer axes walked in order like an odometer.
template <typename Row>
void for_each_row(const at::Tensor& dst, const at::Tensor& src, Row&& row) {
  const int64_t rank = dst.dim();
  int64_t rows = 1;
  for (int64_t k = 0; k + 1 < rank; ++k) rows *= dst.size(k);
  int64_t idx[kMaxRowRank] = {0};
  int64_t d_off = 0, s_off = 0;
  for (int64_t r = 0; r < rows; ++r) {
    row(d_off, s_off);
    for (int64_t k = rank - 2; k >= 0; --k) {
      d_off += dst.stride(k);
      s_off += src.stride(k);
      if (++idx[k] < dst.size(k)) break;
      d_off -= dst.stride(k) * dst.size(k);
      s_off -= src.stride(k) * src.size(k);
      idx[k] = 0;
    }
  }
}

}  // namespace pypto_golden::sim
