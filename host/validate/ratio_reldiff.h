// ratio_reldiff: relative-difference gate with a bad-point budget and a cap.
//
// In float32: d = |a - e|; denom = max(|a|, |e|, 2^-14 / diff_thd) + 1e-9; rdiff = d if
// d < diff_thd else d / denom; bad = rdiff > diff_thd; passes iff the count of bad points <=
// round(pct_thd * numel) and the worst bad rdiff < max_diff_hd. NaN / Inf on either side fail
// first. Optional valid prefix. One parallel pass, no temporaries.
#pragma once

#include "validate/gate_common.h"

namespace pypto_golden {

struct RatioReldiffOptions {
  double diff_thd = 0.01;
  double pct_thd = 0.05;
  double max_diff_hd = INFINITY;
  int64_t max_show = 10;
  ValidPrefix prefix;
  // The parameters as the report prints them (Python's str); empty: Python's repr.
  std::string diff_thd_text, pct_thd_text, max_diff_hd_text;
};

// Failure lines (gate_report.h indents them): shape / valid-prefix / non-finite lines as
// ratio_allclose, or
//   "ratio_reldiff fail: <reasons joined by ' AND '>"   reasons:
//       "error_count=E/N (ratio=x.xxxx%, allowed<=y.yyyy%, threshold=T pts)"
//       "worst rdiff=<.4g> >= max_diff_hd=<.4g>"
//   "diff_thd=... pct_thd=... max_diff_hd=..."
//   "first K mismatches:"
//   "[flat] actual=<.8g>, expected=<.8g>, abs_diff=<.4g>, rdiff=<.4g>"
GateResult ratio_reldiff(const at::Tensor& actual, const at::Tensor& expected, const RatioReldiffOptions& options);

}  // namespace pypto_golden
