// Where a failing output differs from the golden, reduced to what a picture needs (the HTML
// report's heatmap and histogram): a 2-D slice through the worst element, pooled to a grid of
// at most kPictureCells x kPictureCells cells holding each cell's largest |actual - expected|,
// the cells holding never-written elements, the largest differences and their indices, and
// how many elements differ by each decade.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace pypto_golden {

inline constexpr int64_t kPictureCells = 96;
inline constexpr int kHistogramLowDecade = -12;  // differences below 1e-12 share the first decade
inline constexpr int kHistogramHighDecade = 6;   // and from 1e6 up the last

struct PictureCell {
  std::vector<int64_t> index;  // in the whole tensor
  double actual = 0, expected = 0;
};

struct OutputPicture {
  std::string slice;            // the slice drawn, in Python's notation: "[3, :, :]"
  int64_t rows = 0, cols = 0;   // its extent
  int64_t cell_rows = 1, cell_cols = 1;  // elements per grid cell along each axis
  int64_t grid_rows = 0, grid_cols = 0;
  std::vector<float> max_diff;  // per cell, row-major; +inf where a difference is NaN or infinite
  std::vector<uint8_t> unwritten;  // per cell, 1 when it holds an element the kernel never wrote
  std::vector<int64_t> worst_cell;  // the worst element's (row, col) in the slice
  std::vector<PictureCell> worst;  // the largest differences in the whole tensor, largest first
  int64_t exact = 0;               // elements equal to the golden's
  std::vector<int64_t> decades;    // elements with |diff| in [10^d, 10^(d+1)), d from kHistogramLowDecade
  int64_t nonfinite = 0;           // elements whose difference is NaN or infinite
};

// The picture of `actual` against `expected` (same shape); `unwritten`, when defined, is a
// bool tensor of the same shape marking the elements the kernel never wrote.
OutputPicture draw_difference(const at::Tensor& actual, const at::Tensor& expected, const at::Tensor& unwritten);

}  // namespace pypto_golden
