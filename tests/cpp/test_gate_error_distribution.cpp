#include "validate/error_distribution.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

namespace {
at::Tensor f32(std::vector<float> v) { return at::tensor(v, at::kFloat); }
}  // namespace

TEST_CASE("error_distribution: the report (values as the torch-based harness prints them)") {
  ErrorDistribution d = error_distribution(f32({1, 2, 3, 4}), f32({1, 2, 3, 5}), ErrorDistributionOptions{});
  CHECK(d.result.passed);
  CHECK(d.result.detail.empty());
  CHECK(d.report ==
        "rel-L2 = 16.0128%  cosine = 0.9939991  numel=4\n"
        "  diff_thd=1e-03  frac>thd=25.0000%  worst=0.2\n"
        "  diff_thd=3e-03  frac>thd=25.0000%  worst=0.2\n"
        "  diff_thd=5e-03  frac>thd=25.0000%  worst=0.2\n"
        "  diff_thd=1e-02  frac>thd=25.0000%  worst=0.2\n"
        "  diff_thd=3e-02  frac>thd=25.0000%  worst=0.2\n"
        "  diff_thd=5e-02  frac>thd=25.0000%  worst=0.2\n"
        "  rel-diff percentiles: p50=0  p90=0.14  p99=0.194  p99.9=0.199  p99.99=0.2  p100=0.2\n"
        "  abs-diff percentiles: p50=0  p90=0.7  p99=0.97  p99.9=0.997  p99.99=1  p100=1\n"
        "  |golden| mean=2.75\n"
        "  |golden| percentiles: p50=2.5  p90=4.4  p99=4.94  p99.9=4.99  p99.99=5  p100=5\n");
  ErrorDistributionOptions o{{1e-2, 0.5}, {0.0, 0.25, 1.0}, true};
  ErrorDistribution e = error_distribution(f32({1, -2, 0.5, 4, 0}), f32({1.5, -2, 0.25, 4.01, 0}), o);
  // torch's float32 cosine prints 0.9931778; the double sums give the exact 0.99317771... .
  CHECK(e.report ==
        "rel-L2 = 11.8152%  cosine = 0.9931777  numel=5\n"
        "  diff_thd=1e-02  frac>thd=40.0000%  worst=0.5\n"
        "  diff_thd=5e-01  frac>thd=0.0000%  worst=0\n"
        "  rel-diff percentiles: p0=0  p25=0  p100=0.5\n"
        "  abs-diff percentiles: p0=0  p25=0  p100=0.5\n"
        "  |golden| mean=1.552\n"
        "  |golden| percentiles: p0=0  p25=0.25  p100=4.01\n");
}

TEST_CASE("error_distribution: NaN / Inf in actual are reported; they fail only without always_pass") {
  ErrorDistributionOptions o{{1e-2}, {0.5}, true};
  ErrorDistribution d = error_distribution(f32({NAN, INFINITY, 1}), f32({1, 1, 1}), o);
  CHECK(d.result.passed);
  CHECK(d.report.rfind("    illegal values in actual: NaN=1 Inf=1\nrel-L2 = nan%", 0) == 0);
  CHECK(d.report.find("  rel-diff percentiles: p50=0\n") != std::string::npos);  // non-finite dropped
  o.always_pass = false;
  ErrorDistribution f = error_distribution(f32({NAN, INFINITY, 1}), f32({1, 1, 1}), o);
  CHECK_FALSE(f.result.passed);
  CHECK(f.result.detail == "    illegal values in actual: NaN=1 Inf=1");
  CHECK(f.report == "    illegal values in actual: NaN=1 Inf=1\n");
  // Nothing finite at all.
  ErrorDistribution g = error_distribution(f32({NAN}), f32({INFINITY}), ErrorDistributionOptions{{1e-2}, {0.5}, true});
  CHECK(g.report.find("  rel-diff percentiles: (no finite values)\n") != std::string::npos);
  CHECK(g.report.find("  |golden| percentiles: (no finite values)\n") != std::string::npos);
}

TEST_CASE("error_distribution: empty and mismatched outputs") {
  ErrorDistribution d = error_distribution(at::zeros({0}), at::zeros({0}), ErrorDistributionOptions{});
  CHECK(d.result.passed);
  CHECK(d.report == "rel-L2 = 0.0000%  cosine = 0.0000000  numel=0\n");
  ErrorDistribution s = error_distribution(at::zeros({2}), at::zeros({3}), ErrorDistributionOptions{});
  CHECK_FALSE(s.result.passed);
  CHECK(s.result.detail == "    shape mismatch: actual (2,) vs expected (3,)");
}
