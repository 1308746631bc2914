// ratio_allclose: allclose that tolerates a bounded ratio of outliers.
//
// In float32 (both sides read as float32, like .to(torch.float32)): bad = |a - e| > atol +
// rtol * |e|; passes iff the count of bad points <= round(max_error_ratio * numel) (half to
// even). NaN / Inf on either side fail first. Optional valid prefix (valid_rows, valid_axis,
// zero_tail). One parallel pass, no temporaries; 16-bit floats are read in place.
#pragma once

#include "validate/gate_common.h"

namespace pypto_golden {

struct RatioAllcloseOptions {
  double atol = 1e-5;
  double rtol = 1e-5;
  double max_error_ratio = 0.005;
  int64_t max_show = 10;
  ValidPrefix prefix;
  // The tolerances as the report prints them (Python's str of the values given); empty:
  // Python's repr of the doubles.
  std::string atol_text, rtol_text;
};

// Failure lines (gate_report.h indents them):
//   "shape mismatch: actual (4,) vs expected (1,)"
//   valid-prefix failures (gate_common.h), nonfinite_text(...), or
//   "ratio_allclose fail: error_count=E/N (ratio=x.xxxx%, allowed<=y.yyyy%, threshold=T pts)"
//   "atol=... rtol=..."
//   "max abs diff=<.6g> at (i, j) (tol=<.6g>)"
//   "first K mismatches:"
//   "[flat] actual=<.8g>, expected=<.8g>, diff=<.4g>, tol=<.4g>"   (K <= max_show)
GateResult ratio_allclose(const at::Tensor& actual, const at::Tensor& expected, const RatioAllcloseOptions& options);

// The pass behind it, over `runs` of two contiguous CPU tensors (for gates that compare a
// selection of rows). Logical indices count over the runs.
struct RatioAllcloseScan {
  int64_t numel = 0;
  NonFinite nonfinite;
  int64_t bad = 0;
  BestAt<float> max_diff;
  float max_tol = 0.0f;
  std::vector<ListedPoint> first;  // diff in .first, tol in .second
};
RatioAllcloseScan ratio_allclose_scan(const at::Tensor& actual, const at::Tensor& expected, const Runs& runs,
                                      double atol, double rtol, size_t max_show);

// The failure lines of a scan without non-finite values (none: it passes); `shape` is the
// logical shape of the runs (for the index of the greatest difference).
GateLines ratio_allclose_verdict(const RatioAllcloseScan& scan, c10::IntArrayRef shape,
                                  const RatioAllcloseOptions& options);

}  // namespace pypto_golden
