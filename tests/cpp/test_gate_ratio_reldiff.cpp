#include "validate/ratio_reldiff.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

namespace {
at::Tensor f32(std::vector<float> v) { return at::tensor(v, at::kFloat); }

RatioReldiffOptions opts(double diff_thd, double pct_thd, double max_diff_hd = INFINITY) {
  RatioReldiffOptions o;
  o.diff_thd = diff_thd;
  o.pct_thd = pct_thd;
  o.max_diff_hd = max_diff_hd;
  return o;
}
}  // namespace

TEST_CASE("ratio_reldiff: absolute differences below diff_thd are never bad") {
  // d = 0.0099 < 0.01: rdiff = d, not bad, even against a tiny expected value.
  CHECK(ratio_reldiff(f32({0.0099f}), f32({0.0f}), opts(0.01, 0)).passed);
  // d = 0.02 >= 0.01 against 0: denom = max(0.02, 0, 2^-14 / 0.01 = 0.0061) -> rdiff = 1: bad.
  CHECK_FALSE(ratio_reldiff(f32({0.02f}), f32({0.0f}), opts(0.01, 0)).passed);
  // d = 1 on values near 1000: rdiff = 1 / 1001 < 0.01: fine.
  CHECK(ratio_reldiff(f32({1001.0f}), f32({1000.0f}), opts(0.01, 0)).passed);
  // Symmetric: the larger magnitude is the denominator either way.
  CHECK(ratio_reldiff(f32({1000.0f}), f32({1001.0f}), opts(0.01, 0)).passed);
}

TEST_CASE("ratio_reldiff: thresholds compare in float32 and the edge itself is not bad") {
  // d = |1.01 - 1| as float32; rdiff = d / (1.01 + 1e-9) vs diff_thd 0.01 as float32.
  CHECK(ratio_reldiff(f32({2.0f}), f32({1.0f}), opts(0.5, 0)).passed);  // rdiff = 1 / 2 = 0.5: not > 0.5
  CHECK_FALSE(ratio_reldiff(f32({std::nextafter(2.0f, 3.0f)}), f32({1.0f}), opts(0.5, 0)).passed);
}

TEST_CASE("ratio_reldiff: the count budget rounds half to even, the cap is strict") {
  at::Tensor e = at::ones({500});
  at::Tensor a = e.clone();
  a.narrow(0, 0, 2).fill_(3.0);  // rdiff = 2 / 3
  CHECK(ratio_reldiff(a, e, opts(0.01, 0.005)).passed);  // round(2.5) = 2 allowed
  a.narrow(0, 0, 3).fill_(3.0);
  CHECK_FALSE(ratio_reldiff(a, e, opts(0.01, 0.005)).passed);
  a.narrow(0, 0, 3).fill_(1.0);
  a.index_put_({7}, 3.0);  // one bad point, rdiff 0.6666667
  CHECK(ratio_reldiff(a, e, opts(0.01, 0.005, 0.7)).passed);
  GateResult capped = ratio_reldiff(a, e, opts(0.01, 0.005, 0.6666));
  CHECK(capped.detail.find("    ratio_reldiff fail: worst rdiff=0.6667 >= max_diff_hd=0.6666\n") == 0);
}

TEST_CASE("ratio_reldiff: the failure report") {
  at::Tensor e = at::ones({4});
  at::Tensor a = f32({3.0f, 1.0f, 1.0f, -1.0f});
  RatioReldiffOptions o = opts(0.01, 0.25, 1.0);
  o.diff_thd_text = "0.01";
  o.pct_thd_text = "0.25";
  o.max_diff_hd_text = "1.0";
  o.max_show = 5;
  GateResult r = ratio_reldiff(a, e, o);
  CHECK(r.detail ==
        "    ratio_reldiff fail: error_count=2/4 (ratio=50.0000%, allowed<=25.0000%, threshold=1 pts)"
        " AND worst rdiff=2 >= max_diff_hd=1\n"
        "    diff_thd=0.01 pct_thd=0.25 max_diff_hd=1.0\n"
        "    first 2 mismatches:\n"
        "    [0] actual=3, expected=1, abs_diff=2, rdiff=0.6667\n"
        "    [3] actual=-1, expected=1, abs_diff=2, rdiff=2");
  GateResult plain = ratio_reldiff(f32({3.0f}), f32({1.0f}), opts(0.01, 0));
  CHECK(plain.detail.find("    diff_thd=0.01 pct_thd=0.0 max_diff_hd=inf\n") != std::string::npos);
}

TEST_CASE("ratio_reldiff: non-finite, empty, shape and valid prefix") {
  CHECK(ratio_reldiff(f32({1.0f}), f32({NAN}), opts(0.01, 1)).detail ==
        "    illegal values in comparison: actual: NaN=0 Inf=0; expected: NaN=1 Inf=0");
  CHECK(ratio_reldiff(at::zeros({0}), at::zeros({0}), opts(0.01, 0)).passed);
  CHECK(ratio_reldiff(at::zeros({2, 2}), at::zeros({4}), opts(0.01, 0)).detail ==
        "    shape mismatch: actual (2, 2) vs expected (4,)");
  at::Tensor a = f32({1.0f, INFINITY});
  RatioReldiffOptions o = opts(0.01, 0);
  o.prefix.valid_rows = 1;
  CHECK(ratio_reldiff(a, f32({1.0f, 0.0f}), o).passed);
  o.prefix.zero_tail = true;
  CHECK(ratio_reldiff(a, f32({1.0f, 0.0f}), o).detail == "    inactive tail contains 1 nonzero values");
  o.prefix.valid_rows = 0;
  o.prefix.zero_tail = false;
  CHECK(ratio_reldiff(a, f32({1.0f, 0.0f}), o).passed);
  o.prefix.valid_rows = 3;
  CHECK(ratio_reldiff(a, f32({1.0f, 0.0f}), o).detail == "    valid_rows=3 out of range for axis 0 of length 2");
}

TEST_CASE("ratio_reldiff: bf16 read in place") {
  at::Tensor e = at::ones({2048}, at::kBFloat16);
  at::Tensor a = e.clone();
  a.index_put_({2047}, 2.0);
  GateResult r = ratio_reldiff(a, e, opts(0.01, 0));
  CHECK(r.detail.find("error_count=1/2048") != std::string::npos);
  CHECK(r.detail.find("    [2047] actual=2, expected=1, abs_diff=1, rdiff=0.5") != std::string::npos);
}
