#include "validate/topk_pair_compare.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

namespace {
at::Tensor i64(std::vector<int64_t> v, std::vector<int64_t> shape) { return at::tensor(v, at::kLong).reshape(shape); }
at::Tensor f32(std::vector<float> v, std::vector<int64_t> shape) { return at::tensor(v, at::kFloat).reshape(shape); }

TopkPairOptions opts(int64_t dim = -1, bool descending = true, int64_t max_show = 10) {
  return TopkPairOptions{"v", dim, descending, max_show};
}
}  // namespace

TEST_CASE("topk_pair_compare: equal idx passes without looking at vals") {
  at::Tensor idx = i64({3, 1, 2}, {3});
  CHECK(topk_pair_compare(idx, idx, f32({NAN, 5, 9}, {3}), at::Tensor(), opts()).passed);
}

TEST_CASE("topk_pair_compare: a tie swap keeps a_vals monotone and passes") {
  // Candidates 3 and 1 tie at 5.0: either order is a correct top-k.
  at::Tensor a = i64({3, 1, 2}, {1, 3}), e = i64({1, 3, 2}, {1, 3});
  CHECK(topk_pair_compare(a, e, f32({5, 5, 4}, {1, 3}), at::Tensor(), opts()).passed);
  // Ascending order with ties.
  CHECK(topk_pair_compare(a, e, f32({1, 1, 4}, {1, 3}), at::Tensor(), opts(-1, false)).passed);
  CHECK_FALSE(topk_pair_compare(a, e, f32({5, 5, 4}, {1, 3}), at::Tensor(), opts(-1, false)).passed);
}

TEST_CASE("topk_pair_compare: a real miss breaks the order at the mismatch, both neighbours count") {
  at::Tensor a = i64({0, 1, 2, 7, 0, 2, 1, 5}, {2, 4}), e = i64({0, 1, 2, 3, 0, 1, 2, 5}, {2, 4});
  // Row 0: idx 7 at the last position with 0.9 after 0.8 (left pair broken).
  // Row 1: positions 1 and 2 swapped; 0.1 < 0.2 on their pair: both break.
  at::Tensor v = f32({1.0f, 0.9f, 0.8f, 0.9f, 0.3f, 0.1f, 0.2f, 0.05f}, {2, 4});
  GateResult r = topk_pair_compare(a, e, v, at::Tensor(), opts());
  CHECK_FALSE(r.passed);
  CHECK(r.detail ==
        "    top-k idx mismatch via 'v' (dim=-1 order=descending): 3 position(s) where a_vals breaks descending order "
        "at the mismatch\n"
        "      [0,3] actual_idx=7 expected_idx=3 actual_score=0.9 actual_vals[2:4]=[0.8, 0.9]\n"
        "      [1,1] actual_idx=2 expected_idx=1 actual_score=0.1 actual_vals[0:3]=[0.3, 0.1, 0.2]\n"
        "      [1,2] actual_idx=1 expected_idx=2 actual_score=0.2 actual_vals[1:4]=[0.1, 0.2, 0.05]");
  GateResult shown = topk_pair_compare(a, e, v, at::Tensor(), opts(-1, true, 1));
  CHECK(shown.detail.find("\n      ... and 2 more") != std::string::npos);
  CHECK(shown.detail.find("[1,1]") == std::string::npos);
}

TEST_CASE("topk_pair_compare: NaN in a_vals at a mismatch breaks the order") {
  at::Tensor a = i64({1, 0}, {2}), e = i64({0, 1}, {2});
  CHECK_FALSE(topk_pair_compare(a, e, f32({NAN, NAN}, {2}), at::Tensor(), opts()).passed);
  CHECK(topk_pair_compare(a, e, f32({1, 1}, {2}), at::Tensor(), opts()).passed);
}

TEST_CASE("topk_pair_compare: dim other than the last, coordinates in the original axes") {
  // k along dim 0 of [3, 2]; column 1 has a real miss at position 2.
  at::Tensor a = i64({0, 0, 1, 1, 2, 9}, {3, 2}), e = i64({0, 0, 1, 1, 2, 2}, {3, 2});
  at::Tensor v = f32({3, 3, 2, 1, 1, 2}, {3, 2});
  GateResult r = topk_pair_compare(a, e, v, at::Tensor(), opts(0));
  CHECK(r.detail ==
        "    top-k idx mismatch via 'v' (dim=0 order=descending): 1 position(s) where a_vals breaks descending order "
        "at the mismatch\n"
        "      [2,1] actual_idx=9 expected_idx=2 actual_score=2 actual_vals[1:3]=[1, 2]");
  // Non-contiguous inputs are read through their strides.
  CHECK(topk_pair_compare(a.t(), e.t(), v.t(), at::Tensor(), opts(-1)).detail.find("[1,2] actual_idx=9") !=
        std::string::npos);
}

TEST_CASE("topk_pair_compare: k = 1 fails a mismatch unless the value ties the expected value") {
  at::Tensor a = i64({4, 7}, {2, 1}), e = i64({5, 7}, {2, 1});
  at::Tensor av = f32({0.5f, 0.25f}, {2, 1});
  CHECK(topk_pair_compare(a, e, av, f32({0.5f, 0.25f}, {2, 1}), opts()).passed);
  GateResult r = topk_pair_compare(a, e, av, f32({0.75f, 0.25f}, {2, 1}), opts());
  CHECK(r.detail ==
        "    top-k idx mismatch via 'v' (dim=-1 order=descending): 1 position(s) where k=1 and a_vals differs from the "
        "expected value at the mismatch\n"
        "      [0,0] actual_idx=4 expected_idx=5 actual_score=0.5 expected_score=0.75");
  CHECK(topk_pair_compare(a, e, av, at::Tensor(), opts()).detail ==
        "    compare_fn misconfigured: vals_name='v' not found in expected outputs");
  CHECK(topk_pair_compare(a, e, av, f32({0.5f}, {1}), opts()).detail ==
        "    idx/expected vals shape mismatch: idx=(2, 1) vs vals=(1,)");
  // NaN never ties.
  CHECK_FALSE(topk_pair_compare(a, e, f32({NAN, 0.25f}, {2, 1}), f32({NAN, 0.25f}, {2, 1}), opts()).passed);
}

TEST_CASE("topk_pair_compare: shape and dim checks, empty outputs, int32 idx") {
  at::Tensor a = i64({0, 1}, {2});
  CHECK(topk_pair_compare(a, i64({0, 1, 2}, {3}), f32({1, 2}, {2}), at::Tensor(), opts()).detail ==
        "    idx shape mismatch: (2,) vs (3,)");
  CHECK(topk_pair_compare(a, a, f32({1, 2, 3}, {3}), at::Tensor(), opts()).detail ==
        "    idx/vals shape mismatch: idx=(2,) vs vals=(3,)");
  CHECK(topk_pair_compare(a, a, f32({1, 2}, {2}), at::Tensor(), opts(1)).detail ==
        "    dim=1 out of range for shape (2,)");
  CHECK(topk_pair_compare(a, a, f32({1, 2}, {2}), at::Tensor(), opts(-2)).detail ==
        "    dim=-2 out of range for shape (2,)");
  CHECK(topk_pair_compare(at::zeros({0, 4}, at::kLong), at::zeros({0, 4}, at::kLong), at::zeros({0, 4}), at::Tensor(),
                          opts()).passed);
  at::Tensor ai = at::tensor({2, 1}, at::kInt), ei = at::tensor({1, 2}, at::kLong);
  CHECK(topk_pair_compare(ai, ei, at::ones({2}, at::kBFloat16), at::Tensor(), opts()).passed);
  CHECK_FALSE(topk_pair_compare(ai, ei, at::tensor({1.0, 2.0}).to(at::kHalf), at::Tensor(), opts()).passed);
}

TEST_CASE("topk_pair_compare: many rows in parallel keep the first failures in order") {
  const int64_t rows = 50000, k = 4;
  at::Tensor e = at::arange(k, at::kLong).repeat({rows, 1});
  at::Tensor a = e.clone();
  at::Tensor v = at::arange(k, 0, -1, at::kFloat).repeat({rows, 1});  // 4 3 2 1: strictly descending
  for (int64_t row : {int64_t(40000), int64_t(7), int64_t(49999)}) {
    a.index_put_({row, 0}, 9);
    v.index_put_({row, 0}, 0.0);  // breaks the order
  }
  GateResult r = topk_pair_compare(a, e, v, at::Tensor(), opts(-1, true, 2));
  CHECK(r.detail.find(": 3 position(s)") != std::string::npos);
  CHECK(r.detail.find("\n      [7,0] actual_idx=9") != std::string::npos);
  CHECK(r.detail.find("\n      [40000,0] actual_idx=9") != std::string::npos);
  CHECK(r.detail.find("\n      ... and 1 more") != std::string::npos);
}
