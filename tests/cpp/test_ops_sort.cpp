// sort32, mrgsort (format 1 and 2) and gather (mask patterns, bit reinterpretation, index form).
#include "test_ops_util.h"

#include <cstring>

using namespace ops_test;

namespace {

at::Tensor ramp_u32(int64_t n) { return call("arange", {I(0), L({1, n}), D("uint32")}).tensor; }

// The value and index lanes of a pair row.
at::Tensor values_of(const at::Tensor& pairs) { return pairs.slice(-1, 0, pairs.size(-1), 2); }
at::Tensor indices_of(const at::Tensor& pairs) {
  return pairs.slice(-1, 1, pairs.size(-1), 2).contiguous().view(at::kInt).to(at::kLong);
}

}  // namespace

TEST_CASE("sort32 sorts each 32-block descending into (value, index) pairs, stable on ties") {
  std::vector<float> v(64);
  for (int k = 0; k < 64; ++k) v[static_cast<size_t>(k)] = static_cast<float>((k * 7) % 5);  // many ties
  at::Tensor src = f32(v).reshape({1, 64});
  at::Tensor out = call("sort32", {T(src), T(ramp_u32(64))}).tensor;
  CHECK(out.sizes().equals({1, 128}));
  for (int64_t b = 0; b < 2; ++b) {
    at::Tensor block = src.narrow(1, 32 * b, 32).reshape({32});
    auto sorted = block.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true);
    at::Tensor pairs = out.narrow(1, 64 * b, 64);
    CHECK(same(values_of(pairs).reshape({32}), std::get<0>(sorted)));
    CHECK(same(indices_of(pairs).reshape({32}), std::get<1>(sorted) + 32 * b));  // positions within the row
  }
  // The index lane is the raw bit pattern of the uint32 index, e.g. 3 -> 4.2e-45 as a float.
  at::Tensor one = f32(std::vector<float>(32, 1.0f)).reshape({1, 32});
  at::Tensor pairs = call("sort32", {T(one), T(ramp_u32(32))}).tensor;
  uint32_t bits;
  float lane = pairs[0][7].item<float>();
  std::memcpy(&bits, &lane, 4);
  CHECK(bits == 3u);
}

TEST_CASE("sort32 puts NaN first, keeps large uint32 indices and checks its operands") {
  at::Tensor src = at::zeros({1, 32});
  src[0][5] = std::numeric_limits<float>::quiet_NaN();
  src[0][6] = 2.0f;
  at::Tensor idx = at::full({1, 32}, static_cast<int64_t>(4294967295LL), at::kLong);
  at::Tensor out = call("sort32", {T(src), T(idx)}).tensor;
  CHECK(std::isnan(out[0][0].item<float>()));
  CHECK(out[0][2].item<float>() == 2.0f);
  CHECK(out[0][4].item<float>() == 0.0f);
  Value i = call("gather", {T(out)}, {{"mask_pattern", S("MaskPattern.P1010")}, {"output_dtype", D("uint32")}});
  CHECK(same(i.tensor, at::full({1, 32}, static_cast<int64_t>(4294967295LL), at::kLong)));
  CHECK_THROWS_WITH_AS(call("sort32", {T(at::zeros({1, 48})), T(ramp_u32(48))}),
                       "pl.sort32: the last axis of src must be a multiple of 32, got shape (1, 48)", KernelError);
  CHECK_THROWS_WITH_AS(call("sort32", {T(at::zeros({1, 32})), T(at::zeros({1, 32}))}),
                       "pl.sort32: idx must be a UINT32 tensor (e.g. pl.arange(0, shape, dtype=pl.UINT32)), got fp32",
                       KernelError);
}

TEST_CASE("sort32 + mrgsort format 1 chains into a stable full descending sort") {
  at::manual_seed(11);
  // Values from a small set so that ties cross block boundaries.
  at::Tensor src = at::randint(0, 20, {1, 512}).to(at::kFloat);
  at::Tensor s = call("sort32", {T(src), T(ramp_u32(512))}).tensor;
  s = call("mrgsort", {T(s)}, {{"block_len", I(64)}}).tensor;
  // After one merge: groups of 128 elements sorted.
  for (int64_t g = 0; g < 4; ++g) {
    auto ref = src.narrow(1, 128 * g, 128).reshape({128}).sort(true, 0, true);
    at::Tensor pairs = s.narrow(1, 256 * g, 256);
    CHECK(same(values_of(pairs).reshape({128}), std::get<0>(ref)));
    CHECK(same(indices_of(pairs).reshape({128}), std::get<1>(ref) + 128 * g));
  }
  s = call("mrgsort", {T(s)}, {{"block_len", I(256)}}).tensor;
  auto ref = src.reshape({512}).sort(true, 0, true);
  CHECK(same(values_of(s).reshape({512}), std::get<0>(ref)));
  CHECK(same(indices_of(s).reshape({512}), std::get<1>(ref)));
  CHECK_THROWS_WITH_AS(call("mrgsort", {T(s)}, {{"block_len", I(48)}}),
                       "pl.mrgsort: block_len must be a positive multiple of 64 (positions: 32 pairs per sort32 "
                       "block), got 48",
                       KernelError);
}

TEST_CASE("mrgsort format 1 merges an incomplete last group of runs") {
  // Width 192 = 3 runs of 64 positions: one group with three runs.
  at::manual_seed(12);
  at::Tensor src = at::randn({1, 96});
  at::Tensor s = call("sort32", {T(src), T(ramp_u32(96))}).tensor;
  s = call("mrgsort", {T(s)}, {{"block_len", I(64)}}).tensor;
  auto ref = src.reshape({96}).sort(true, 0, true);
  CHECK(same(values_of(s).reshape({96}), std::get<0>(ref)));
  CHECK(same(indices_of(s).reshape({96}), std::get<1>(ref)));
}

TEST_CASE("mrgsort format 2 merges 2-4 sorted lists; ties keep the earlier list first") {
  auto pairs = [](std::vector<float> vals, std::vector<int32_t> idx) {
    at::Tensor out = at::empty({1, static_cast<int64_t>(2 * vals.size())});
    for (size_t k = 0; k < vals.size(); ++k) {
      float lane;
      std::memcpy(&lane, &idx[k], 4);
      out[0][static_cast<int64_t>(2 * k)] = vals[k];
      out[0][static_cast<int64_t>(2 * k + 1)] = lane;
    }
    return out;
  };
  at::Tensor a = pairs({9, 5, 5, 1}, {0, 1, 2, 3});
  at::Tensor b = pairs({7, 5, 0}, {10, 11, 12});
  at::Tensor c = pairs({5}, {20});
  at::Tensor m = call("mrgsort", {T(a), T(b), T(c)}).tensor;
  CHECK(m.sizes().equals({1, 16}));
  CHECK(same(values_of(m), f32({9, 7, 5, 5, 5, 5, 1, 0}).reshape({1, 8})));
  CHECK(same(indices_of(m), i64({0, 10, 1, 2, 11, 20, 3, 12}).reshape({1, 8})));
  at::Tensor m2 = call("mrgsort", {T(b), T(a)}, {{"exhausted", B(false)}}).tensor;
  CHECK(same(indices_of(m2), i64({0, 10, 11, 1, 2, 3, 12}).reshape({1, 7})));
}

TEST_CASE("gather keeps the columns of each mask pattern") {
  at::Tensor x = at::arange(16, at::kFloat).reshape({2, 8});
  auto g = [&](const char* p) { return call("gather", {T(x)}, {{"mask_pattern", S(p)}}).tensor; };
  auto cols = [&](std::vector<int64_t> c) { return x.index_select(1, i64(c)); };
  CHECK(same(g("MaskPattern.P0101"), cols({0, 2, 4, 6})));
  CHECK(same(g("MaskPattern.P1010"), cols({1, 3, 5, 7})));
  CHECK(same(g("MaskPattern.P0001"), cols({0, 4})));
  CHECK(same(g("MaskPattern.P0010"), cols({1, 5})));
  CHECK(same(g("MaskPattern.P0100"), cols({2, 6})));
  CHECK(same(g("MaskPattern.P1000"), cols({3, 7})));
  CHECK(same(g("MaskPattern.P1111"), x));
  CHECK(same(call("gather", {T(x)}, {{"mask_pattern", I(2)}}).tensor, cols({1, 3, 5, 7})));
}

TEST_CASE("gather's output_dtype reinterprets bits and needs the same width") {
  at::Tensor x = f32({1.0f, -2.0f, 0.5f, 3.0f}).reshape({1, 4});
  Value r = call("gather", {T(x)}, {{"mask_pattern", S("MaskPattern.P0101")}, {"output_dtype", D("int32")}});
  CHECK(same(r.tensor, i32({0x3F800000, 0x3F000000}).reshape({1, 2})));
  Value u = call("gather", {T(x)}, {{"mask_pattern", S("MaskPattern.P1010")}, {"output_dtype", D("uint32")}});
  CHECK(same(u.tensor, i64({0xC0000000LL, 0x40400000LL}).reshape({1, 2})));
  CHECK_THROWS_WITH_AS(call("gather", {T(x)}, {{"mask_pattern", S("MaskPattern.P0101")}, {"output_dtype", D("int8")}}),
                       "pl.gather: output_dtype int8 must have the bit width of the input (32 bits, fp32): it "
                       "reinterprets bits, it does not convert values",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("gather", {T(x)}, {{"mask_pattern", S("MaskPattern.P0110")}}),
                       "pl.gather: unknown mask pattern P0110 (P0101 P1010 P0001 P0010 P0100 P1000 P1111)", KernelError);
}

TEST_CASE("gather index form picks x[b, idx[b, k]]") {
  at::Tensor x = at::arange(12, at::kFloat).reshape({3, 4});
  at::Tensor idx = i32({3, 0, 1, 1, 2, 3}).reshape({3, 2});
  Value r = call("gather", {T(x), I(-1), T(idx)});
  CHECK(same(r.tensor, f32({3, 0, 5, 5, 10, 11}).reshape({3, 2})));
  CHECK_THROWS_WITH_AS(call("gather", {T(x), I(-1), T(i32({4, 0, 0, 0, 0, 0}).reshape({3, 2}))}),
                       "pl.gather: index values must be in [0, 4), got values from 0 to 4", KernelError);
}
