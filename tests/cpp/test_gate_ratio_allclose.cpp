#include "validate/ratio_allclose.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

namespace {
at::Tensor f32(std::vector<float> v) { return at::tensor(v, at::kFloat); }

RatioAllcloseOptions opts(double atol, double rtol, double ratio) {
  RatioAllcloseOptions o;
  o.atol = atol;
  o.rtol = rtol;
  o.max_error_ratio = ratio;
  return o;
}

// n elements of 0 vs 0, the first `bad` of them off by 10.
GateResult with_bad(int64_t n, int64_t bad, double ratio) {
  at::Tensor e = at::zeros({n});
  at::Tensor a = e.clone();
  if (bad) a.narrow(0, 0, bad).fill_(10.0);
  return ratio_allclose(a, e, opts(1e-3, 1e-3, ratio));
}
}  // namespace

TEST_CASE("ratio_allclose: |a - e| <= atol + rtol * |e| in float32, exactly at the edge") {
  // tol = 0.5 + 0.25 * |2| = 1.0: a difference of exactly 1.0 is fine, the next float is not.
  CHECK(ratio_allclose(f32({3.0f}), f32({2.0f}), opts(0.5, 0.25, 0)).passed);
  CHECK_FALSE(ratio_allclose(f32({std::nextafter(3.0f, 4.0f)}), f32({2.0f}), opts(0.5, 0.25, 0)).passed);
  // Asymmetric: rtol scales |expected| only.
  CHECK(ratio_allclose(f32({0.0f}), f32({10.0f}), opts(0, 1.0, 0)).passed);
  CHECK_FALSE(ratio_allclose(f32({10.0f}), f32({0.0f}), opts(0, 1.0, 0)).passed);
  // The tolerance is float32 like torch's: float(0.1) = 0.100000001 > 0.1, so a difference of
  // float(0.1) passes where a double comparison would fail.
  CHECK(ratio_allclose(f32({0.1f}), f32({0.0f}), opts(0.1, 0, 0)).passed);
}

TEST_CASE("ratio_allclose: the allowed count is round(max_error_ratio * numel), half to even") {
  // 0.005 * 100 = 0.5 -> 0 allowed
  CHECK(with_bad(100, 0, 0.005).passed);
  CHECK_FALSE(with_bad(100, 1, 0.005).passed);
  // 0.005 * 300 = 1.5 -> 2 allowed
  CHECK(with_bad(300, 2, 0.005).passed);
  CHECK_FALSE(with_bad(300, 3, 0.005).passed);
  // 0.005 * 500 = 2.5 -> 2 allowed
  CHECK(with_bad(500, 2, 0.005).passed);
  CHECK_FALSE(with_bad(500, 3, 0.005).passed);
  // 0.25 * 10 = 2.5 -> 2; 0.35 * 10 = 3.5 -> 4
  CHECK_FALSE(with_bad(10, 3, 0.25).passed);
  CHECK(with_bad(10, 4, 0.35).passed);
  // ratio 1 allows everything, ratio 0 is a strict allclose
  CHECK(with_bad(10, 10, 1.0).passed);
  CHECK_FALSE(with_bad(10, 1, 0.0).passed);
}

TEST_CASE("ratio_allclose: the failure report") {
  at::Tensor e = at::zeros({2, 3});
  at::Tensor a = e.clone();
  a.index_put_({0, 1}, 0.5);
  a.index_put_({1, 2}, -2.0);
  RatioAllcloseOptions o = opts(1e-3, 1e-2, 0.1);
  o.atol_text = "0.001";
  o.rtol_text = "0.01";
  o.max_show = 1;
  GateResult r = ratio_allclose(a, e, o);
  CHECK_FALSE(r.passed);
  CHECK(r.detail ==
        "    ratio_allclose fail: error_count=2/6 (ratio=33.3333%, allowed<=10.0000%, threshold=1 pts)\n"
        "    atol=0.001 rtol=0.01\n"
        "    max abs diff=2 at (1, 2) (tol=0.001)\n"
        "    first 1 mismatches:\n"
        "    [1] actual=0.5, expected=0, diff=0.5, tol=0.001");
  // Without texts the tolerances print as Python floats.
  GateResult plain = ratio_allclose(f32({1.0f}), f32({0.0f}), opts(0, 0, 0));
  CHECK(plain.detail.find("    atol=0.0 rtol=0.0\n") != std::string::npos);
  CHECK(plain.detail.find("max abs diff=1 at (0,) (tol=0)") != std::string::npos);
}

TEST_CASE("ratio_allclose: NaN / Inf on either side fail, whatever the ratio") {
  CHECK(ratio_allclose(f32({NAN, 0.0f}), f32({0.0f, 0.0f}), opts(1, 1, 1)).detail ==
        "    illegal values in comparison: actual: NaN=1 Inf=0; expected: NaN=0 Inf=0");
  CHECK(ratio_allclose(f32({0.0f, 0.0f}), f32({INFINITY, -INFINITY}), opts(1, 1, 1)).detail ==
        "    illegal values in comparison: actual: NaN=0 Inf=0; expected: NaN=0 Inf=2");
  CHECK(ratio_allclose(f32({INFINITY, NAN}), f32({INFINITY, NAN}), opts(1, 1, 1)).detail ==
        "    illegal values in comparison: actual: NaN=1 Inf=1; expected: NaN=1 Inf=1");
}

TEST_CASE("ratio_allclose: empty tensors, shape mismatch, mixed and 16-bit dtypes") {
  CHECK(ratio_allclose(at::zeros({0, 4}), at::zeros({0, 4}), opts(0, 0, 0)).passed);
  CHECK(ratio_allclose(at::zeros({4}), at::zeros({1}), opts(0, 0, 0)).detail ==
        "    shape mismatch: actual (4,) vs expected (1,)");
  // Both sides are read as float32, so bf16 against fp32 compares.
  CHECK(ratio_allclose(at::ones({3}, at::kBFloat16), at::ones({3}), opts(0, 0, 0)).passed);
  CHECK_FALSE(ratio_allclose(at::full({3}, 2.0, at::kHalf), at::ones({3}, at::kHalf), opts(0, 0, 0)).passed);
  CHECK(ratio_allclose(at::tensor({1, 2}, at::kInt), at::tensor({1, 3}, at::kInt), opts(1, 0, 0)).passed);
}

TEST_CASE("ratio_allclose: valid_rows / valid_axis / zero_tail") {
  at::Tensor e = at::zeros({4, 3});
  at::Tensor a = e.clone();
  a.narrow(0, 2, 2).fill_(NAN);  // garbage in the inactive rows
  RatioAllcloseOptions o = opts(0, 0, 0);
  o.prefix.valid_rows = 2;
  CHECK(ratio_allclose(a, e, o).passed);  // NaN in the dropped tail is ignored
  o.prefix.zero_tail = true;
  CHECK(ratio_allclose(a, e, o).detail == "    inactive tail contains 6 nonzero values");
  at::Tensor zeros_tail = e.clone();
  zeros_tail.index_put_({3, 0}, -0.0);
  CHECK(ratio_allclose(zeros_tail, e, o).passed);  // -0.0 is zero
  o.prefix.valid_rows = 0;
  o.prefix.zero_tail = false;
  CHECK(ratio_allclose(a, e, o).passed);  // nothing compared
  o.prefix.valid_rows = 5;
  CHECK(ratio_allclose(a, e, o).detail == "    valid_rows=5 out of range for axis 0 of length 4");
  o.prefix.valid_rows = -1;
  CHECK(ratio_allclose(a, e, o).detail == "    valid_rows=-1 out of range for axis 0 of length 4");
  o.prefix.valid_rows = 1;
  o.prefix.valid_axis = 2;
  CHECK(ratio_allclose(a, e, o).detail == "    valid_axis=2 out of range for shape (4, 3)");

  // Along axis 1 of [2, 4, 2]: indices in the report are those of the narrowed tensor.
  at::Tensor e3 = at::zeros({2, 4, 2});
  at::Tensor a3 = e3.clone();
  a3.index_put_({1, 1, 1}, 7.0);  // inside the prefix of 2
  a3.index_put_({0, 3, 0}, 9.0);  // in the tail
  RatioAllcloseOptions p = opts(0, 0, 0);
  p.prefix.valid_rows = 2;
  p.prefix.valid_axis = -2;
  GateResult r = ratio_allclose(a3, e3, p);
  CHECK(r.detail.find("error_count=1/8 ") != std::string::npos);
  CHECK(r.detail.find("max abs diff=7 at (1, 1, 1)") != std::string::npos);
  CHECK(r.detail.find("    [7] actual=7,") != std::string::npos);
  p.prefix.zero_tail = true;
  CHECK(ratio_allclose(a3, e3, p).detail == "    inactive tail contains 1 nonzero values");
}

TEST_CASE("ratio_allclose: first mismatches and the greatest difference across chunks") {
  at::Tensor e = at::zeros({500000});
  at::Tensor a = e.clone();
  a.index_put_({400000}, 5.0);
  a.index_put_({3}, 1.0);
  a.index_put_({200000}, 5.0);
  RatioAllcloseOptions o = opts(0, 0, 0);
  GateResult r = ratio_allclose(a, e, o);
  CHECK(r.detail.find("max abs diff=5 at (200000,)") != std::string::npos);
  CHECK(r.detail.find("first 3 mismatches:\n    [3] actual=1,") != std::string::npos);
  CHECK(r.detail.find("\n    [400000] actual=5, expected=0, diff=5, tol=0") != std::string::npos);
}
