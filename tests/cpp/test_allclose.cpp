#include "validate/allclose.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

namespace {
at::Tensor f32(std::vector<float> v) { return at::tensor(v, at::kFloat); }
}  // namespace

TEST_CASE("thresholds follow torch.isclose in float32") {
  // |a - e| <= atol + rtol * |e| with atol=0.5, rtol=0: exactly at the edge passes.
  CHECK(allclose_gate("y", f32({1.5f}), f32({1.0f}), 0.0, 0.5).passed);
  CHECK_FALSE(allclose_gate("y", f32({1.5000001f}), f32({1.0f}), 0.0, 0.5).passed);
  // rtol scales with |expected|, not |actual|.
  CHECK(allclose_gate("y", f32({110.0f}), f32({100.0f}), 0.1, 0.0).passed);
  CHECK_FALSE(allclose_gate("y", f32({100.0f}), f32({110.0f}), 0.05, 0.0).passed);
}

TEST_CASE("NaN never matches, equal infinities do") {
  CHECK_FALSE(allclose_gate("y", f32({NAN}), f32({NAN}), 1e-5, 1e-5).passed);
  CHECK(allclose_gate("y", f32({INFINITY, -INFINITY}), f32({INFINITY, -INFINITY}), 1e-5, 1e-5).passed);
  CHECK_FALSE(allclose_gate("y", f32({INFINITY}), f32({-INFINITY}), 1e-5, 1e-5).passed);
  CHECK_FALSE(allclose_gate("y", f32({INFINITY}), f32({1.0f}), 1e30, 1e30).passed);
}

TEST_CASE("the failure report lists counts, greatest differences and first mismatches") {
  GateResult r = allclose_gate("y", f32({1.0f, 2.0f, 3.0f, NAN}), f32({1.0f, 3.0f, 3.0f, NAN}), 1e-5, 1e-5);
  CHECK_FALSE(r.passed);
  CHECK(r.detail ==
        "  'y' FAIL  shape=(4,) dtype=torch.float32\n"
        "    Mismatched elements: 2/4  rtol=1e-05 atol=1e-05\n"
        "    Greatest absolute difference: 1.0 at index (1,)\n"
        "    Greatest relative difference: 0.3333333432674408 at index (1,)\n"
        "    first 2 mismatches:\n"
        "    [1] actual=2.0, expected=3.0\n"
        "    [3] actual=nan, expected=nan");
}

TEST_CASE("indices of the greatest differences are multi-dimensional") {
  at::Tensor e = at::zeros({3, 4});
  at::Tensor a = e.clone();
  a.index_put_({2, 1}, 5.0);
  a.index_put_({0, 3}, 1.0);
  GateResult r = allclose_gate("z", a, e, 1e-5, 1e-5);
  CHECK(r.detail.find("Greatest absolute difference: 5.0 at index (2, 1)") != std::string::npos);
  CHECK(r.detail.find("[3] actual=1.0, expected=0.0\n    [9] actual=5.0, expected=0.0") != std::string::npos);
}

TEST_CASE("only the first 20 mismatches are listed, by flat index, at any size") {
  at::Tensor e = at::zeros({300000});
  at::Tensor a = at::ones({300000});
  AllcloseStats s = allclose_stats(a, e, 0, 0);
  CHECK(s.mismatches == 300000);
  REQUIRE(s.first.size() == 20);
  for (int64_t k = 0; k < 20; ++k) CHECK(s.first[static_cast<size_t>(k)].flat_index == k);
}

TEST_CASE("shape and dtype mismatches are failures, never broadcast") {
  GateResult shape = allclose_gate("y", at::zeros({4}), at::zeros({1}), 1e-5, 1e-5);
  CHECK_FALSE(shape.passed);
  CHECK(shape.detail == "  'y' FAIL  shape=(4,) dtype=torch.float32\n    shape mismatch: actual (4,) vs expected (1,)");
  GateResult dtype = allclose_gate("y", at::zeros({4}), at::zeros({4}, at::kDouble), 1e-5, 1e-5);
  CHECK(dtype.detail == "  'y' FAIL  shape=(4,) dtype=torch.float32\n    dtype mismatch: actual torch.float32 vs expected torch.float64");
}

TEST_CASE("integer, half and empty outputs") {
  CHECK(allclose_gate("i", at::tensor({1, 2}, at::kInt), at::tensor({1, 2}, at::kInt), 0, 0).passed);
  GateResult r = allclose_gate("i", at::tensor({1, 5}, at::kInt), at::tensor({1, 2}, at::kInt), 0, 0);
  CHECK(r.detail.find("[1] actual=5, expected=2") != std::string::npos);
  CHECK(allclose_gate("h", at::ones({8}, at::kBFloat16), at::ones({8}, at::kBFloat16), 0, 0).passed);
  CHECK_FALSE(allclose_gate("h", at::ones({8}, at::kHalf), at::zeros({8}, at::kHalf), 0, 0.5).passed);
  CHECK(allclose_gate("e", at::zeros({0, 3}), at::zeros({0, 3}), 0, 0).passed);
}

TEST_CASE("greatest differences: finite only, lowest index on ties, relative is inf where expected is 0") {
  AllcloseStats s = allclose_stats(f32({NAN, 1.0f, 3.0f, 3.0f, INFINITY}), f32({0.0f, 0.0f, 1.0f, 1.0f, 1.0f}), 0, 0);
  CHECK(s.mismatches == 5);
  CHECK(s.max_abs_diff == 2.0);
  CHECK(s.max_abs_index == 2);
  CHECK(std::isinf(s.max_rel_diff));
  CHECK(s.max_rel_index == 1);
  AllcloseStats none = allclose_stats(f32({NAN, INFINITY}), f32({1.0f, 1.0f}), 0, 0);
  CHECK(none.max_abs_index == -1);
  GateResult r = allclose_gate("y", f32({NAN}), f32({1.0f}), 0, 0);
  CHECK(r.detail == "  'y' FAIL  shape=(1,) dtype=torch.float32\n"
                    "    Mismatched elements: 1/1  rtol=0.0 atol=0.0\n"
                    "    first 1 mismatches:\n"
                    "    [0] actual=nan, expected=1.0");
}

TEST_CASE("an infinite expected value never makes a finite difference close") {
  // |a - e| = inf <= atol + rtol * inf would hold; torch.isclose requires a finite difference.
  CHECK_FALSE(allclose_gate("y", f32({1.0f}), f32({INFINITY}), 1e-5, 1e-5).passed);
  CHECK_FALSE(allclose_gate("y", f32({-INFINITY}), f32({INFINITY}), 1e-5, 1e-5).passed);
}

TEST_CASE("the greatest difference is found in any block and any thread's chunk") {
  for (int64_t at_index : {int64_t(0), int64_t(1023), int64_t(1024), int64_t(70000), int64_t(299999)}) {
    at::Tensor e = at::zeros({300000});
    at::Tensor a = e.clone();
    a.index_put_({at_index}, 2.0);
    a.index_put_({(at_index + 5) % 300000}, 1.0);
    AllcloseStats s = allclose_stats(a, e, 0, 0.5);
    CHECK(s.mismatches == 2);
    CHECK(s.max_abs_index == at_index);
    CHECK(s.max_abs_diff == 2.0);
  }
  // Equal greatest values: the lowest index wins even across chunks.
  at::Tensor e = at::zeros({300000});
  at::Tensor a = e.clone();
  a.index_put_({250000}, 3.0);
  a.index_put_({100}, 3.0);
  CHECK(allclose_stats(a, e, 0, 0).max_abs_index == 100);
}

TEST_CASE("16-bit floats are compared in float32 without copies, like torch.isclose") {
  // bf16 1.0 vs 1.0078125 (one ulp): |d| = 0.0078125 <= 0.0078125 passes, atol just below fails.
  at::Tensor a = at::full({3}, 1.0078125, at::kBFloat16);
  at::Tensor e = at::ones({3}, at::kBFloat16);
  CHECK(allclose_gate("b", a, e, 0, 0.0078125).passed);
  CHECK_FALSE(allclose_gate("b", a, e, 0, 0.0078).passed);
  GateResult r = allclose_gate("h", at::full({2}, 2.5, at::kHalf), at::full({2}, 2.0, at::kHalf), 0, 0.25);
  CHECK(r.detail == "  'h' FAIL  shape=(2,) dtype=torch.float16\n"
                    "    Mismatched elements: 2/2  rtol=0.0 atol=0.25\n"
                    "    Greatest absolute difference: 0.5 at index (0,)\n"
                    "    Greatest relative difference: 0.25 at index (0,)\n"
                    "    first 2 mismatches:\n"
                    "    [0] actual=2.5, expected=2.0\n"
                    "    [1] actual=2.5, expected=2.0");
}

TEST_CASE("bool and 0-dim outputs") {
  GateResult r = allclose_gate("m", at::tensor({1, 0}).to(at::kBool), at::tensor({1, 1}).to(at::kBool), 0, 0);
  CHECK(r.detail.find("[1] actual=False, expected=True") != std::string::npos);
  GateResult s = allclose_gate("s", at::scalar_tensor(2.0), at::scalar_tensor(1.0), 0, 0);
  CHECK(s.detail.find("Greatest absolute difference: 1.0 at index ()") != std::string::npos);
}
