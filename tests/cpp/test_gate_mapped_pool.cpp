#include "validate/mapped_pool_ratio_allclose.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

namespace {
MappedPoolOptions opts(std::vector<int64_t> mapping_shape, int64_t block_size, bool ranked = false) {
  MappedPoolOptions o;
  o.mapping_name = "slots";
  o.mapping_shape = std::move(mapping_shape);
  o.block_size = block_size;
  o.leading_rank_axis = ranked;
  o.pool_name = "kv";
  o.ratio.atol = 1e-5;
  o.ratio.rtol = 1e-5;
  o.ratio.max_error_ratio = 0.0;
  return o;
}
at::Tensor slots(std::vector<int64_t> v, std::vector<int64_t> shape) { return at::tensor(v, at::kLong).reshape(shape); }
}  // namespace

TEST_CASE("mapped pool: mapped rows may change within tolerance, unmapped rows must not") {
  // [blocks=3, block_size=2, 4]: 6 physical rows of 4 values.
  at::Tensor expected = at::arange(24, at::kFloat).reshape({3, 2, 4});
  at::Tensor actual = expected.clone();
  actual.index_put_({1, 0}, 100.0);  // row 2
  actual.index_put_({2, 1}, 200.0);  // row 5
  at::Tensor golden = actual.clone();
  const MappedPoolOptions o = opts({3}, 2);
  CHECK(mapped_pool_ratio_allclose(actual, golden, slots({5, -1, 2}, {3}), o).passed);
  // Mapped row 5 off by 1 in one value: ratio_allclose on the gathered rows (rows 2 then 5).
  at::Tensor off = actual.clone();
  off.index_put_({2, 1, 3}, 201.0);
  GateResult r = mapped_pool_ratio_allclose(off, golden, slots({5, -1, 2}, {3}), o);
  CHECK(r.detail ==
        "    mapped rows in kv from 'slots':\n"
        "    ratio_allclose fail: error_count=1/8 (ratio=12.5000%, allowed<=0.0000%, threshold=0 pts)\n"
        "    atol=1e-05 rtol=1e-05\n"
        "    max abs diff=1 at (1, 3) (tol=0.00201)\n"
        "    first 1 mismatches:\n"
        "    [7] actual=201, expected=200, diff=1, tol=0.00201");
  // Row 2 is not mapped any more: its change is a stray write.
  GateResult stray = mapped_pool_ratio_allclose(actual, expected, slots({5, -1, -1}, {3}), o);
  CHECK(stray.detail == "    unmapped physical kv row changed: row=2 changed_values=4 mapping='slots'");
  // No mapped rows and nothing changed: pass.
  CHECK(mapped_pool_ratio_allclose(expected, expected, slots({-1, -1, -1}, {3}), o).passed);
}

TEST_CASE("mapped pool: unmapped rows compare exactly; NaN never equals, equal inf does") {
  at::Tensor e = at::zeros({2, 2, 2});
  e.index_put_({0, 1, 0}, INFINITY);
  const MappedPoolOptions o = opts({1}, 2);
  CHECK(mapped_pool_ratio_allclose(e.clone(), e, slots({-1}, {1}), o).passed);
  at::Tensor n = e.clone();
  n.index_put_({1, 0, 1}, NAN);
  at::Tensor a = n.clone();
  CHECK(mapped_pool_ratio_allclose(a, n, slots({-1}, {1}), o).detail ==
        "    unmapped physical kv row changed: row=2 changed_values=1 mapping='slots'");
  // ... but a mapped row must be finite.
  CHECK(mapped_pool_ratio_allclose(a, n, slots({2}, {1}), o).detail ==
        "    actual mapped rows in kv from 'slots' contain 1 non-finite value(s)");
  at::Tensor fin = n.clone();
  fin.index_put_({1, 0, 1}, 0.0);
  CHECK(mapped_pool_ratio_allclose(fin, n, slots({2}, {1}), o).detail ==
        "    expected mapped rows in kv from 'slots' contain 1 non-finite value(s)");
}

TEST_CASE("mapped pool: mapping sentinels, range and duplicates") {
  at::Tensor p = at::zeros({2, 2, 3});
  const MappedPoolOptions o = opts({2, 2}, 2);
  CHECK(mapped_pool_ratio_allclose(p, p, slots({0, -1, -2, 1}, {2, 2}), o).detail ==
        "    'slots'[2]=-2 is invalid; only -1 is a negative sentinel");
  CHECK(mapped_pool_ratio_allclose(p, p, slots({0, 4, 9, 1}, {2, 2}), o).detail ==
        "    'slots'[1]=4 is outside physical row range [0, 4)");
  CHECK(mapped_pool_ratio_allclose(p, p, slots({3, 1, 3, 1}, {2, 2}), o).detail ==
        "    'slots' contains duplicate physical row 1");
  CHECK(mapped_pool_ratio_allclose(p, p, slots({-1, 3, -1, 0}, {2, 2}), o).passed);
  // Negative values are reported before out-of-range ones wherever they are.
  CHECK(mapped_pool_ratio_allclose(p, p, slots({7, 0, 1, -5}, {2, 2}), o).detail ==
        "    'slots'[3]=-5 is invalid; only -1 is a negative sentinel");
}

TEST_CASE("mapped pool: leading rank axis, duplicates per rank") {
  // [ranks=2, blocks=2, block_size=2, 1]: 4 rows per rank.
  at::Tensor e = at::zeros({2, 2, 2, 1});
  const MappedPoolOptions o = opts({2, 3}, 2, true);
  // The same row on different ranks is fine.
  CHECK(mapped_pool_ratio_allclose(e, e, slots({1, 2, -1, 1, 2, 3}, {2, 3}), o).passed);
  CHECK(mapped_pool_ratio_allclose(e, e, slots({1, 2, -1, 3, 0, 3}, {2, 3}), o).detail ==
        "    'slots' contains duplicate physical row 3 on rank 1");
  CHECK(mapped_pool_ratio_allclose(e, e, slots({1, 2, -1, 3, -3, 0}, {2, 3}), o).detail ==
        "    'slots'[1, 1]=-3 is invalid; only -1 is a negative sentinel");
  CHECK(mapped_pool_ratio_allclose(e, e, slots({1, 2, -1, 3, 4, 0}, {2, 3}), o).detail ==
        "    'slots'[1, 1]=4 is outside physical row range [0, 4)");
  at::Tensor a = e.clone();
  a.index_put_({1, 1, 0, 0}, 1.0);  // rank 1, row 2
  CHECK(mapped_pool_ratio_allclose(a, e, slots({2, -1, -1, 0, 1, 3}, {2, 3}), o).detail ==
        "    unmapped physical kv row changed: rank=1 row=2 changed_values=1 mapping='slots'");
  CHECK(mapped_pool_ratio_allclose(a, a, slots({2, -1, -1, 0, 1, 3}, {2, 3}), o).passed);
  CHECK(mapped_pool_ratio_allclose(at::zeros({3, 2, 2, 1}), at::zeros({3, 2, 2, 1}), slots({0, 0, 0, 0, 0, 0}, {2, 3}),
                                   o).detail == "    leading rank count of kv must be 2, got 3");
}

TEST_CASE("mapped pool: configuration checks in order") {
  at::Tensor p = at::zeros({2, 2, 3});
  const MappedPoolOptions o = opts({2}, 2);
  CHECK(mapped_pool_ratio_allclose(p, at::zeros({2, 2, 4}), slots({0, 1}, {2}), o).detail ==
        "    kv shape mismatch: actual=(2, 2, 3) expected=(2, 2, 4)");
  CHECK(mapped_pool_ratio_allclose(at::zeros({2, 3}), at::zeros({2, 3}), slots({0, 1}, {2}), o).detail ==
        "    expected block-major kv layout [blocks, block_size, ...] with block_size=2, got (2, 3)");
  CHECK(mapped_pool_ratio_allclose(p, p, slots({0, 1}, {2}), opts({2, 1}, 2, true)).detail ==
        "    expected block-major kv layout [ranks, blocks, block_size, ...] with block_size=2, got (2, 2, 3)");
  CHECK(mapped_pool_ratio_allclose(p, p, at::Tensor(), o).detail == "    compare_fn misconfigured: missing input 'slots'");
  CHECK(mapped_pool_ratio_allclose(p, p, at::zeros({2}), o).detail ==
        "    'slots' must have an integer dtype, got torch.float32");
  CHECK(mapped_pool_ratio_allclose(p, p, slots({0, 1, 2}, {3}), o).detail ==
        "    'slots' must have shape (2,), got (3,)");
  CHECK(mapped_pool_ratio_allclose(p, p, at::tensor({0, 1}, at::kInt), o).passed);
}

TEST_CASE("mapped pool: integer and bf16 pools") {
  at::Tensor e = at::zeros({2, 2, 2}, at::kInt);
  at::Tensor a = e.clone();
  a.index_put_({0, 1, 1}, 3);
  const MappedPoolOptions o = opts({1}, 2);
  CHECK(mapped_pool_ratio_allclose(a, e, slots({1}, {1}), o).detail.find("error_count=1/2") != std::string::npos);
  MappedPoolOptions loose = o;
  loose.ratio.atol = 3;
  CHECK(mapped_pool_ratio_allclose(a, e, slots({1}, {1}), loose).passed);
  at::Tensor b = at::ones({2, 2, 2}, at::kBFloat16);
  CHECK(mapped_pool_ratio_allclose(b, b, slots({0}, {1}), o).passed);
}
