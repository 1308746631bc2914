// sort32, mrgsort (format 1 and 2) and gather (mask patterns, bit reinterpretation, index form).
#include "test_ops_util.h"

#include "sim/ops/sort_kernels.h"

#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

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

TEST_CASE("scatter is gather's inverse: mask and index forms") {
  at::Tensor even = f32({1, 2, 3, 4}).reshape({2, 2});
  at::Tensor odd = f32({5, 6, 7, 8}).reshape({2, 2});
  at::Tensor dst = at::zeros({2, 4});
  Value e = call("scatter", {T(even)}, {{"mask_pattern", S("MaskPattern.P0101")}, {"dst", T(dst)}});
  Value both = call("scatter", {T(odd)}, {{"mask_pattern", S("MaskPattern.P1010")}, {"dst", e}});
  CHECK(same(both.tensor, f32({1, 5, 2, 6, 3, 7, 4, 8}).reshape({2, 4})));
  CHECK(same(dst, at::zeros({2, 4})));  // a new tensor, dst untouched
  CHECK(same(call("gather", {both}, {{"mask_pattern", S("MaskPattern.P1010")}}).tensor, odd));
  CHECK_THROWS_WITH_AS(call("scatter", {T(even)}, {{"mask_pattern", S("MaskPattern.P0001")}, {"dst", T(dst)}}),
                       "pl.scatter: dst must have input's shape with the last axis times the pattern's period 4 "
                       "(input (2, 2)), got (2, 4)",
                       KernelError);
  // Index form: out[b, index[b, k]] = src[b, k].
  at::Tensor base = at::zeros({2, 5});
  at::Tensor idx = i32({4, 0, 1, 2}).reshape({2, 2});
  Value s = call("scatter", {T(base), I(-1), T(idx), T(f32({9, 8, 7, 6}).reshape({2, 2}))});
  CHECK(same(s.tensor, f32({8, 0, 0, 0, 9, 0, 7, 6, 0, 0}).reshape({2, 5})));
  CHECK_THROWS_WITH_AS(call("scatter", {T(base), I(-1), T(i32({5, 0, 1, 2}).reshape({2, 2})), T(at::ones({2, 2}))}),
                       "pl.scatter: index values must be in [0, 5), got values from 0 to 5", KernelError);
  CHECK_THROWS_WITH_AS(call("scatter", {T(base), I(-1), T(idx)}, {{"dst", T(dst)}}),
                       "pl.scatter: the index form (dim, index, src) and the mask form (mask_pattern=, dst=) are "
                       "mutually exclusive",
                       KernelError);
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

// ---------------------------------------------------------------------------------------
// The sort kernels' paths (sim/ops/sort_kernels.h): the scalar reference and the AVX-512
// and AVX2 kernels must agree bit for bit on every input, and all must sort like torch's
// stable descending sort wherever the runs they merge are sorted.

namespace {

namespace sk = pypto_golden::sim::sort_kernels;

// Value mixes: each stresses another part of the keys.
enum class Mix { Normal, Ties, Special, Bits };
constexpr Mix kMixes[] = {Mix::Normal, Mix::Ties, Mix::Special, Mix::Bits};

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float make_value(std::mt19937_64& rng, Mix mix) {
  switch (mix) {
    case Mix::Normal: return std::normal_distribution<float>()(rng);
    case Mix::Ties: return static_cast<float>(static_cast<int>(rng() % 5) - 2);  // ties across blocks and runs
    case Mix::Special:
      switch (rng() % 8) {
        case 0: return from_bits(0x7F800001u | (static_cast<uint32_t>(rng()) & 0x803FFFFFu));  // NaN, payload, sign
        case 1: return from_bits(0x7FC00000u | (static_cast<uint32_t>(rng()) & 0x801FFFFFu));  // quiet NaN
        case 2: return rng() % 2 ? 0.0f : -0.0f;
        case 3: return rng() % 2 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
        case 4: return from_bits(static_cast<uint32_t>(rng()) & 0x807FFFFFu);  // subnormals
        default: return static_cast<float>(static_cast<int>(rng() % 3) - 1);
      }
    case Mix::Bits: return from_bits(static_cast<uint32_t>(rng()));
  }
  return 0.0f;
}

std::vector<sk::Isa> available_isas() {
  std::vector<sk::Isa> isas = {sk::Isa::Scalar};
  if (sk::isa_supported(sk::Isa::Avx2)) isas.push_back(sk::Isa::Avx2);
  if (sk::isa_supported(sk::Isa::Avx512)) isas.push_back(sk::Isa::Avx512);
  return isas;
}

bool same_pairs(const std::vector<sk::Pair>& a, const std::vector<sk::Pair>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(sk::Pair)) == 0);
}

// mrgsort format 1 on one row: groups of four runs of `run` pairs, the last group and its
// last run possibly short.
std::vector<sk::Pair> merge_groups(sk::Isa isa, const std::vector<sk::Pair>& row, int64_t run) {
  const int64_t n = static_cast<int64_t>(row.size());
  std::vector<sk::Pair> out(row.size());
  for (int64_t g = 0; g < n; g += 4 * run) {
    std::vector<int64_t> starts;
    for (int64_t k = g; k < std::min(n, g + 4 * run); k += run) starts.push_back(k);
    starts.push_back(std::min(n, g + 4 * run));
    sk::merge_runs(isa, row.data(), starts.data(), starts.size() - 1, out.data() + g);
  }
  return out;
}

// A run sorted by the reference (a merge of one-pair runs).
std::vector<sk::Pair> sorted_run(std::vector<sk::Pair> pairs) {
  std::vector<int64_t> starts(pairs.size() + 1);
  for (size_t k = 0; k < starts.size(); ++k) starts[k] = static_cast<int64_t>(k);
  std::vector<sk::Pair> out(pairs.size());
  if (!pairs.empty()) sk::merge_runs(sk::Isa::Scalar, pairs.data(), starts.data(), pairs.size(), out.data());
  return out;
}

std::vector<sk::Pair> random_pairs(std::mt19937_64& rng, int64_t n, Mix mix) {
  std::vector<sk::Pair> p(static_cast<size_t>(n));
  for (auto& e : p) e = {make_value(rng, mix), static_cast<uint32_t>(rng())};
  return p;
}

// A run for a merge: usually sorted; sometimes a sorted run with two pairs swapped, or not
// sorted at all (the merges then give whatever the reference's two-ended merge gives).
std::vector<sk::Pair> merge_input_run(std::mt19937_64& rng, int64_t n, Mix mix) {
  std::vector<sk::Pair> p = random_pairs(rng, n, mix);
  const uint64_t kind = rng() % 10;
  if (kind == 0) return p;
  p = sorted_run(std::move(p));
  if (kind == 1 && n > 1) std::swap(p[rng() % n], p[rng() % n]);
  return p;
}

}  // namespace

TEST_CASE("sort kernels: PYPTO_SIM_SORT_ISA is auto (or unset), avx2 or scalar") {
  const sk::Isa best = sk::isa_supported(sk::Isa::Avx512) ? sk::Isa::Avx512
                       : sk::isa_supported(sk::Isa::Avx2) ? sk::Isa::Avx2
                                                          : sk::Isa::Scalar;
  CHECK(sk::isa_from_env_value(nullptr) == best);
  CHECK(sk::isa_from_env_value("auto") == best);
  CHECK(sk::isa_from_env_value("avx2") == (sk::isa_supported(sk::Isa::Avx2) ? sk::Isa::Avx2 : sk::Isa::Scalar));
  CHECK(sk::isa_from_env_value("scalar") == sk::Isa::Scalar);
  CHECK(sk::isa_supported(sk::Isa::Scalar));
  CHECK(std::string(sk::isa_name(sk::Isa::Avx2)) == "avx2");
  CHECK_THROWS_WITH_AS(sk::isa_from_env_value("avx512"),
                       "PYPTO_SIM_SORT_ISA must be 'auto', 'avx2' or 'scalar' (unset means auto), got 'avx512'",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sk::isa_from_env_value("AVX2"),
                       "PYPTO_SIM_SORT_ISA must be 'auto', 'avx2' or 'scalar' (unset means auto), got 'AVX2'",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sk::isa_from_env_value(""),
                       "PYPTO_SIM_SORT_ISA must be 'auto', 'avx2' or 'scalar' (unset means auto), got ''",
                       std::invalid_argument);
  CHECK(sk::isa_supported(sk::active_isa()));
}

TEST_CASE("sort kernels: sort32 then format-1 merges sort like torch's stable descending sort, on every path") {
  std::mt19937_64 rng(2024);
  for (sk::Isa isa : available_isas()) {
    for (int64_t width : {32, 64, 96, 160, 512, 736, 1024, 2048}) {
      for (Mix mix : kMixes) {
        INFO("isa ", sk::isa_name(isa), ", width ", width, ", mix ", static_cast<int>(mix));
        std::vector<float> src(static_cast<size_t>(width));
        for (auto& v : src) v = make_value(rng, mix);
        // The index lane is the low 32 bits of idx: high bits must not leak in.
        std::vector<int64_t> idx(src.size());
        for (int64_t k = 0; k < width; ++k)
          idx[static_cast<size_t>(k)] = k + static_cast<int64_t>(rng() % 7) * (int64_t(1) << 32);
        std::vector<sk::Pair> row(src.size());
        sk::sort32(isa, src.data(), nullptr, idx.data(), width, row.data());
        for (int64_t run = 32; run < width; run *= 4) row = merge_groups(isa, row, run);
        at::Tensor ref = std::get<1>(at::from_blob(src.data(), {width}, at::kFloat).sort(true, 0, true));
        const int64_t* want = ref.data_ptr<int64_t>();
        int64_t bad = 0;
        for (int64_t k = 0; k < width; ++k) {
          const sk::Pair& p = row[static_cast<size_t>(k)];
          bad += p.bits != static_cast<uint32_t>(want[k]) || bits_of(p.v) != bits_of(src[static_cast<size_t>(want[k])]);
        }
        CHECK(bad == 0);
      }
    }
  }
}

namespace {

// Differential checks of one vector path against the scalar reference, bit for bit, on
// random inputs of every family: NaN payloads, -0 / +0, infinities, subnormals, ties, runs
// that are not sorted, partial groups and short runs.

void sort32_matches_scalar(sk::Isa isa, std::mt19937_64& rng) {
  for (int it = 0; it < 400; ++it) {
    const Mix mix = kMixes[it % 4];
    const int64_t n = 32 * static_cast<int64_t>(1 + rng() % 64);  // 32 .. 2048
    std::vector<float> src(static_cast<size_t>(n));
    for (auto& v : src) v = make_value(rng, mix);
    std::vector<int64_t> i64(src.size());
    std::vector<int32_t> i32(src.size());
    for (size_t k = 0; k < src.size(); ++k) {
      i64[k] = static_cast<int64_t>(rng());
      i32[k] = static_cast<int32_t>(rng());
    }
    const bool wide = it % 2 == 0;
    std::vector<sk::Pair> a(src.size()), b(src.size());
    sk::sort32(sk::Isa::Scalar, src.data(), wide ? nullptr : i32.data(), wide ? i64.data() : nullptr, n, a.data());
    sk::sort32(isa, src.data(), wide ? nullptr : i32.data(), wide ? i64.data() : nullptr, n, b.data());
    INFO("isa ", sk::isa_name(isa), ", iteration ", it, ", n ", n, ", mix ", static_cast<int>(mix));
    CHECK(same_pairs(a, b));
  }
}

void format1_matches_scalar(sk::Isa isa, std::mt19937_64& rng) {
  for (int it = 0; it < 300; ++it) {
    const Mix mix = kMixes[it % 4];
    static const int64_t runs[] = {32, 64, 128, 256, 512};
    const int64_t run = runs[rng() % 5];
    const int64_t n = 1 + static_cast<int64_t>(rng() % 2048);  // pairs per row
    std::vector<sk::Pair> row;
    for (int64_t k = 0; k < n; k += run) {
      std::vector<sk::Pair> r = merge_input_run(rng, std::min(run, n - k), mix);
      row.insert(row.end(), r.begin(), r.end());
    }
    INFO("isa ", sk::isa_name(isa), ", iteration ", it, ", pairs ", n, ", run ", run, ", mix ", static_cast<int>(mix));
    CHECK(same_pairs(merge_groups(sk::Isa::Scalar, row, run), merge_groups(isa, row, run)));
  }
}

void format2_matches_scalar(sk::Isa isa, std::mt19937_64& rng) {
  for (int it = 0; it < 1500; ++it) {
    const Mix mix = kMixes[it % 4];
    static const int64_t scales[] = {3, 9, 17, 33, 65, 129, 300};
    const int64_t scale = scales[rng() % 7];
    const size_t sources = 2 + rng() % 3;
    std::vector<sk::Pair> row;
    std::vector<int64_t> starts = {0};
    for (size_t s = 0; s < sources; ++s) {
      const int64_t len = rng() % 3 == 0 ? scale - 1 : static_cast<int64_t>(rng() % static_cast<uint64_t>(scale));
      std::vector<sk::Pair> r = merge_input_run(rng, len, mix);
      row.insert(row.end(), r.begin(), r.end());
      starts.push_back(starts.back() + len);
    }
    std::vector<sk::Pair> a(row.size()), b(row.size());
    sk::merge_runs(sk::Isa::Scalar, row.data(), starts.data(), sources, a.data());
    sk::merge_runs(isa, row.data(), starts.data(), sources, b.data());
    INFO("isa ", sk::isa_name(isa), ", iteration ", it, ", sources ", sources, ", pairs ", row.size(), ", mix ",
         static_cast<int>(mix));
    CHECK(same_pairs(a, b));
  }
}

}  // namespace

TEST_CASE("sort kernels: the AVX-512 path matches the scalar path bit for bit") {
  if (!sk::isa_supported(sk::Isa::Avx512)) {
    MESSAGE("this CPU has no AVX-512: the AVX-512 path does not run here");
    return;
  }
  std::mt19937_64 rng(7);
  SUBCASE("sort32, int32 and int64 index lanes with arbitrary bits") { sort32_matches_scalar(sk::Isa::Avx512, rng); }
  SUBCASE("format 1: groups of four runs, partial groups and short last runs") {
    format1_matches_scalar(sk::Isa::Avx512, rng);
  }
  SUBCASE("format 2: 2-4 sources of different lengths") { format2_matches_scalar(sk::Isa::Avx512, rng); }
}

TEST_CASE("sort kernels: the AVX2 path matches the scalar path bit for bit") {
  if (!sk::isa_supported(sk::Isa::Avx2)) {
    MESSAGE("this CPU has no AVX2: the AVX2 path does not run here");
    return;
  }
  std::mt19937_64 rng(8);
  SUBCASE("sort32, int32 and int64 index lanes with arbitrary bits") { sort32_matches_scalar(sk::Isa::Avx2, rng); }
  SUBCASE("format 1: groups of four runs, partial groups and short last runs") {
    format1_matches_scalar(sk::Isa::Avx2, rng);
  }
  SUBCASE("format 2: 2-4 sources of different lengths") { format2_matches_scalar(sk::Isa::Avx2, rng); }
}

TEST_CASE("sort kernels: runs that are not sorted merge as the reference's two-ended merge does, on every path") {
  // Run a = (1, 3) is not sorted descending. The front of the merge takes b's 2 (above a's
  // 1), the back takes b's 2 again (below a's 3), the middle a's 3: 2 is duplicated, 1 lost.
  const std::vector<sk::Pair> row = {{1.0f, 10u}, {3.0f, 11u}, {2.0f, 12u}};
  const int64_t starts[] = {0, 2, 3};
  for (sk::Isa isa : available_isas()) {
    INFO("isa ", sk::isa_name(isa));
    std::vector<sk::Pair> out(3);
    sk::merge_runs(isa, row.data(), starts, 2, out.data());
    CHECK(out[0].v == 2.0f);
    CHECK(out[0].bits == 12u);
    CHECK(out[1].v == 3.0f);
    CHECK(out[1].bits == 11u);
    CHECK(out[2].v == 2.0f);
    CHECK(out[2].bits == 12u);
  }
}
