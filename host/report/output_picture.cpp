#include "report/output_picture.h"

#include "tensor/flat_index.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

namespace pypto_golden {
namespace {

// |actual - expected| in float: 0 where they are equal (infinities of one sign, NaN and NaN),
// +inf where the difference is NaN (one side NaN) or infinite.
at::Tensor difference(const at::Tensor& actual, const at::Tensor& expected) {
  const at::Tensor a = actual.to(at::kFloat), e = expected.to(at::kFloat);
  at::Tensor d = (a - e).abs();
  d.masked_fill_(a.eq(e) | (a.isnan() & e.isnan()), 0.0);
  d.masked_fill_(d.isnan(), std::numeric_limits<float>::infinity());
  return d;
}

// The largest value of each cell_rows x cell_cols block of a 2-D tensor.
at::Tensor pool_max(const at::Tensor& t, int64_t cell_rows, int64_t cell_cols, int64_t grid_rows, int64_t grid_cols) {
  const at::Tensor padded = at::constant_pad_nd(t, {0, grid_cols * cell_cols - t.size(1), 0,
                                                    grid_rows * cell_rows - t.size(0)}, 0);
  return padded.reshape({grid_rows, cell_rows, grid_cols, cell_cols}).amax({1, 3}).contiguous();
}

}  // namespace

OutputPicture draw_difference(const at::Tensor& actual, const at::Tensor& expected, const at::Tensor& unwritten) {
  OutputPicture p;
  const at::Tensor diff = difference(actual, expected);
  const at::Tensor flat = diff.reshape({-1});
  const int64_t n = flat.numel();
  if (n == 0) return p;

  const int64_t k = std::min<int64_t>(8, n);
  const auto top = flat.topk(k);
  const at::Tensor a_flat = actual.reshape({-1}).to(at::kDouble), e_flat = expected.reshape({-1}).to(at::kDouble);
  const at::Tensor idx = std::get<1>(top).contiguous();
  const at::Tensor vals = std::get<0>(top).contiguous();
  for (int64_t i = 0; i < k; ++i) {
    if (vals[i].item<float>() <= 0) break;  // equal elements are not among the worst
    const int64_t at = idx[i].item<int64_t>();
    p.worst.push_back({unravel(at, actual.sizes()), a_flat[at].item<double>(), e_flat[at].item<double>()});
  }

  const at::Tensor finite = flat.isfinite();
  p.exact = flat.eq(0).sum().item<int64_t>();
  p.nonfinite = n - finite.sum().item<int64_t>();
  const at::Tensor positive = flat.masked_select(finite & flat.gt(0));
  const int bins = kHistogramHighDecade - kHistogramLowDecade + 1;
  p.decades.assign(static_cast<size_t>(bins), 0);
  if (positive.numel() > 0) {
    const at::Tensor decade = positive.log10().floor().clamp(kHistogramLowDecade, kHistogramHighDecade)
                                  .sub(kHistogramLowDecade).to(at::kLong);
    const at::Tensor counts = decade.bincount({}, bins).contiguous();
    for (int b = 0; b < bins; ++b) p.decades[static_cast<size_t>(b)] = counts[b].item<int64_t>();
  }

  // The 2-D slice through the worst element (the first, if none differs).
  const std::vector<int64_t> worst = p.worst.empty() ? std::vector<int64_t>(actual.dim(), 0) : p.worst[0].index;
  at::Tensor plane = diff, mask = unwritten;
  std::string slice = "[";
  const int64_t lead = std::max<int64_t>(0, actual.dim() - 2);
  for (int64_t ax = 0; ax < lead; ++ax) {
    plane = plane.select(0, worst[static_cast<size_t>(ax)]);
    if (mask.defined()) mask = mask.select(0, worst[static_cast<size_t>(ax)]);
    slice += std::to_string(worst[static_cast<size_t>(ax)]) + ", ";
  }
  for (int64_t ax = lead; ax < actual.dim(); ++ax) slice += ax + 1 < actual.dim() ? ":, " : ":";
  p.slice = slice + "]";
  while (plane.dim() < 2) {
    plane = plane.unsqueeze(0);
    if (mask.defined()) mask = mask.unsqueeze(0);
  }
  p.rows = plane.size(0);
  p.cols = plane.size(1);
  p.worst_cell = {actual.dim() >= 2 ? worst[static_cast<size_t>(lead)] : 0,
                  actual.dim() >= 1 ? worst.back() : 0};
  p.cell_rows = (p.rows + kPictureCells - 1) / kPictureCells;
  p.cell_cols = (p.cols + kPictureCells - 1) / kPictureCells;
  p.grid_rows = (p.rows + p.cell_rows - 1) / p.cell_rows;
  p.grid_cols = (p.cols + p.cell_cols - 1) / p.cell_cols;
  const at::Tensor cells = pool_max(plane, p.cell_rows, p.cell_cols, p.grid_rows, p.grid_cols);
  p.max_diff.assign(cells.data_ptr<float>(), cells.data_ptr<float>() + cells.numel());
  if (mask.defined()) {
    const at::Tensor m = pool_max(mask.to(at::kByte), p.cell_rows, p.cell_cols, p.grid_rows, p.grid_cols);
    p.unwritten.assign(m.data_ptr<uint8_t>(), m.data_ptr<uint8_t>() + m.numel());
  }
  return p;
}

}  // namespace pypto_golden
