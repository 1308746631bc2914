// The 8-bit floats: pl.cast against torch's own conversions inside the range, saturation
// outside it, every rounding mode; fp8 matmul inputs; the vector ops' refusal; allclose.
#include "test_ops_util.h"

#include "tensor/float8.h"
#include "validate/allclose.h"

#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <utility>

using namespace ops_test;

#if PYPTO_HAS_FLOAT8

namespace {

at::Tensor cast_to(const at::Tensor& x, const char* dtype, const char* mode) {
  return call("cast", {T(x), D(dtype), S(mode)}).tensor;
}

at::Tensor bytes_of(const at::Tensor& t) { return t.contiguous().view(at::kByte); }

at::Tensor fp8_bits(std::vector<int> bits, c10::ScalarType type) {
  std::vector<uint8_t> b(bits.begin(), bits.end());
  return at::tensor(b, at::kByte).view(type);
}

// Every finite value of the fp8 type, the midpoints between neighbours (ties), points a
// quarter of the way between them, and random values inside the range.
at::Tensor in_range_probe(c10::ScalarType type, float max) {
  at::Tensor all = at::arange(256, at::TensorOptions().dtype(at::kInt)).to(at::kByte).view(type).to(at::kFloat);
  all = all.masked_select(all.isfinite());
  at::Tensor sorted = std::get<0>(all.sort());
  at::Tensor lo = sorted.slice(0, 0, -1), hi = sorted.slice(0, 1);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-max, max);
  std::vector<float> random(4096);
  for (auto& v : random) v = u(gen);
  return at::cat({sorted, (lo + hi) / 2, lo + (hi - lo) / 4, lo + (hi - lo) * 3 / 4, f32(random)});
}

}  // namespace

TEST_CASE("fp32 -> fp8 with rint and none is torch's conversion everywhere inside the range") {
  for (auto [name, type, max] : {std::tuple{"fp8e4m3fn", at::ScalarType::Float8_e4m3fn, 448.0f},
                                 std::tuple{"fp8e5m2", at::ScalarType::Float8_e5m2, 57344.0f}}) {
    const char* label = name;  // INFO captures it in a lambda, which C++17 forbids for a structured binding
    INFO(label);
    at::Tensor x = in_range_probe(type, max);
    at::Tensor want = bytes_of(x.to(type));
    CHECK(at::equal(bytes_of(cast_to(x, name, "rint")), want));
    CHECK(at::equal(bytes_of(cast_to(x, name, "none")), want));
    // fp8 -> fp32 is exact: every value comes back.
    at::Tensor q = cast_to(x, name, "rint");
    CHECK(at::equal(cast_to(q, "fp32", "rint"), q.to(at::kFloat)));
  }
}

TEST_CASE("fp32 -> fp8 saturates past the largest finite value; NaN stays NaN") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  at::Tensor x = f32({500.0f, -1e6f, inf, -inf, 448.0f, 464.0f, nan});
  // fp8e4m3fn has no infinity: 448 (0x7E) is its largest value, 0x7F its NaN.
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "rint")),
                  bytes_of(fp8_bits({0x7E, 0xFE, 0x7E, 0xFE, 0x7E, 0x7E, 0x7F}, at::ScalarType::Float8_e4m3fn))));
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "ceil")),
                  bytes_of(fp8_bits({0x7E, 0xFE, 0x7E, 0xFE, 0x7E, 0x7E, 0x7F}, at::ScalarType::Float8_e4m3fn))));
  // fp8e5m2: 57344 (0x7B) is the largest finite value; infinities stay infinite.
  at::Tensor y = f32({60000.0f, -1e9f, inf, -inf, 57344.0f});
  CHECK(at::equal(bytes_of(cast_to(y, "fp8e5m2", "round")),
                  bytes_of(fp8_bits({0x7B, 0xFB, 0x7C, 0xFC, 0x7B}, at::ScalarType::Float8_e5m2))));
  CHECK(std::isnan(cast_to(f32({nan}), "fp8e5m2", "rint").to(at::kFloat).item<float>()));
  // torch overflows fp8e5m2 to infinity instead: the saturation is the hardware's rule.
  CHECK(std::isinf(f32({1e9f}).to(at::ScalarType::Float8_e5m2).to(at::kFloat).item<float>()));
}

TEST_CASE("fp32 -> fp8e4m3fn rounds by every mode at fp8 precision") {
  // 1.0625 is halfway between 1.0 (0x38) and 1.125 (0x39); 1.1 is not a tie.
  at::Tensor x = f32({1.0625f, -1.0625f, 1.1f, -1.1f});
  auto e4m3 = [](std::vector<int> b) { return bytes_of(fp8_bits(std::move(b), at::ScalarType::Float8_e4m3fn)); };
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "rint")), e4m3({0x38, 0xB8, 0x39, 0xB9})));
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "round")), e4m3({0x39, 0xB9, 0x39, 0xB9})));
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "floor")), e4m3({0x38, 0xB9, 0x38, 0xB9})));
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "ceil")), e4m3({0x39, 0xB8, 0x39, 0xB8})));
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "trunc")), e4m3({0x38, 0xB8, 0x38, 0xB8})));
  CHECK(at::equal(bytes_of(cast_to(x, "fp8e4m3fn", "odd")), e4m3({0x39, 0xB9, 0x39, 0xB9})));
  // The smallest subnormal is 2^-9; half of it is a tie with zero.
  at::Tensor tiny = f32({std::ldexp(1.0f, -10), std::ldexp(3.0f, -11)});
  CHECK(at::equal(bytes_of(cast_to(tiny, "fp8e4m3fn", "rint")), e4m3({0x00, 0x01})));
  CHECK(at::equal(bytes_of(cast_to(tiny, "fp8e4m3fn", "ceil")), e4m3({0x01, 0x01})));
}

TEST_CASE("fp32 -> fp8 by every mode, at every value, tie and neighbour of one, in both fp8 types") {
  // The oracle: the two fp8 magnitudes around |v| found by a scan of every code, then the
  // mode's rule (floor / ceil toward -inf / +inf, trunc toward zero, round: nearest with
  // ties away from zero, rint / none: nearest with ties to the even code, odd: the
  // neighbour whose code is odd).
  const char* modes[] = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
  for (auto [name, type, max] : {std::tuple{"fp8e4m3fn", at::ScalarType::Float8_e4m3fn, 448.0f},
                                 std::tuple{"fp8e5m2", at::ScalarType::Float8_e5m2, 57344.0f}}) {
    const char* label = name;
    INFO(label);
    std::vector<double> mags;  // by code, 0 .. the largest finite
    for (int c = 0; c < 128; ++c) {
      const float m = fp8_bits({c}, type).to(at::kFloat).item<float>();
      if (!std::isfinite(m)) break;
      mags.push_back(m);
    }
    at::Tensor probe = in_range_probe(type, max);
    probe = probe.masked_select(probe.abs() < max);
    // Each value's FP32 neighbours too: one ulp either side of a value, a tie or a quarter.
    at::Tensor x = at::cat({probe, at::nextafter(probe, at::full_like(probe, INFINITY)),
                            at::nextafter(probe, at::full_like(probe, -INFINITY))});
    x = x.masked_select(x.abs() < max);
    const float* xs = x.const_data_ptr<float>();
    for (int mode = 0; mode < 7; ++mode) {
      CAPTURE(mode);
      at::Tensor got = bytes_of(cast_to(x, name, modes[mode]));
      const uint8_t* g = got.const_data_ptr<uint8_t>();
      int64_t wrong = 0;
      for (int64_t k = 0; k < x.numel(); ++k) {
        const double v = xs[k], a = std::fabs(v);
        const int sign = std::signbit(v) ? 0x80 : 0;
        size_t lo = 0;
        while (lo + 1 < mags.size() && mags[lo + 1] <= a) ++lo;
        int want = static_cast<int>(lo);
        if (mags[lo] != a) {
          const int l = static_cast<int>(lo), h = l + 1;
          const double dl = a - mags[lo], dh = mags[lo + 1] - a;
          switch (mode) {
            case 3: want = sign ? h : l; break;
            case 4: want = sign ? l : h; break;
            case 5: want = l; break;
            case 6: want = l % 2 ? l : h; break;
            case 2: want = dl < dh ? l : h; break;
            default: want = dl < dh ? l : dh < dl ? h : l % 2 ? h : l;
          }
        }
        if (g[k] != (sign | want) && wrong++ < 5) FAIL_CHECK("v = " << v << ": got " << int(g[k]) << ", want " << (sign | want));
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("fp8 -> fp32 is c10's conversion of each of the 256 codes, NaN bits included, in any layout") {
  at::Tensor codes = at::arange(256, at::TensorOptions().dtype(at::kInt)).to(at::kByte);
  for (auto [name, type] : {std::pair{"fp8e4m3fn", at::ScalarType::Float8_e4m3fn},
                            std::pair{"fp8e5m2", at::ScalarType::Float8_e5m2}}) {
    const char* label = name;
    INFO(label);
    at::Tensor q = codes.view(type);
    CHECK(at::equal(cast_to(q, "fp32", "rint").view(at::kInt), q.to(at::kFloat).view(at::kInt)));
    // Rows of a wider tile (a window of a weight matrix).
    at::Tensor wide = codes.repeat({3}).view({8, 96}).view(type).narrow(1, 5, 64);
    CHECK(at::equal(cast_to(wide, "fp32", "rint").view(at::kInt), wide.to(at::kFloat).view(at::kInt)));
  }
}

TEST_CASE("fp8 -> integer and fp16 / bf16 -> fp8 go through the same rules") {
  at::Tensor q = fp8_bits({0x42, 0xC2}, at::ScalarType::Float8_e4m3fn);  // 2.5, -2.5
  CHECK(same(cast_to(q, "int32", "round"), i32({3, -3})));
  CHECK(same(cast_to(q, "int32", "rint"), i32({2, -2})));
  at::Tensor h = f32({1.0625f, 1000.0f}).to(at::kHalf);
  CHECK(at::equal(bytes_of(cast_to(h, "fp8e4m3fn", "rint")),
                  bytes_of(fp8_bits({0x38, 0x7E}, at::ScalarType::Float8_e4m3fn))));
  CHECK(at::equal(bytes_of(cast_to(h.to(at::kBFloat16), "fp8e5m2", "rint")),
                  bytes_of(f32({1.0625f, 1000.0f}).to(at::ScalarType::Float8_e5m2))));
}

TEST_CASE("fp8 matmul inputs accumulate in fp32") {
  at::Tensor a = at::randn({16, 32}).to(at::ScalarType::Float8_e4m3fn);
  at::Tensor b = at::randn({32, 8}).to(at::ScalarType::Float8_e4m3fn);
  at::Tensor c = call("matmul", {T(a), T(b)}, {{"out_dtype", D("fp32")}}).tensor;
  CHECK((c.scalar_type() == at::kFloat));
  CHECK(at::allclose(c, at::mm(a.to(at::kFloat), b.to(at::kFloat)), 1e-6, 1e-6));
  CHECK_THROWS_WITH_AS(call("matmul", {T(a), T(b.to(at::ScalarType::Float8_e5m2))}, {{"out_dtype", D("fp32")}}),
                       "pl.matmul: lhs is fp8e4m3fn but rhs is fp8e5m2; PyPTO has no implicit promotion, "
                       "convert one side with pl.cast",
                       KernelError);
}

TEST_CASE("vector ops refuse fp8 tiles and say to cast") {
  at::Tensor a = at::ones({4, 4}).to(at::ScalarType::Float8_e4m3fn);
  const char* tail = ", which the vector unit does not compute on (fp8 tiles go to pl.matmul or pl.cast); "
                     "pl.cast it to fp32, fp16 or bfloat16 first";
  CHECK_THROWS_WITH_AS(call("add", {T(a), T(a)}), (std::string("pl.add: lhs is fp8e4m3fn") + tail).c_str(),
                       KernelError);
  CHECK_THROWS_WITH_AS(call("exp", {T(a)}), (std::string("pl.exp: input is fp8e4m3fn") + tail).c_str(), KernelError);
  CHECK_THROWS_WITH_AS(call("row_sum", {T(a)}), (std::string("pl.row_sum: input is fp8e4m3fn") + tail).c_str(),
                       KernelError);
}

TEST_CASE("allclose compares fp8 outputs in fp32 and reports their values") {
  using pypto_golden::allclose_gate;
  at::Tensor e = f32({1.0f, 2.0f, 448.0f}).to(at::ScalarType::Float8_e4m3fn);
  CHECK(allclose_gate("q", e, e.clone(), 0.0, 0.0).passed);
  at::Tensor a = f32({1.0f, 2.25f, 448.0f}).to(at::ScalarType::Float8_e4m3fn);
  auto r = allclose_gate("q", a, e, 0.0, 0.1);
  CHECK_FALSE(r.passed);
  CHECK(r.detail ==
        "  'q' FAIL  shape=(3,) dtype=torch.float8_e4m3fn\n"
        "    Mismatched elements: 1/3  rtol=0.0 atol=0.1\n"
        "    Greatest absolute difference: 0.25 at index (1,)\n"
        "    Greatest relative difference: 0.125 at index (1,)\n"
        "    first 1 mismatches:\n"
        "    [1] actual=2.25, expected=2.0");
}

#if PYPTO_HAS_FLOAT8_E8M0
TEST_CASE("fp32 -> fp8e8m0: torch's conversion for the nearest modes, powers of two for the others") {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-126, 126);
  std::vector<float> v;
  for (int k = 0; k < 4096; ++k) v.push_back(std::ldexp(mant(gen), ex(gen)) * (k % 3 == 0 ? -1.0f : 1.0f));
  for (int e = -120; e <= 120; e += 7) v.push_back(std::ldexp(1.5f, e));  // ties
  at::Tensor x = f32(v);
  const auto type = at::ScalarType::Float8_e8m0fnu;
  for (const char* mode : {"none", "rint", "round"}) {
    INFO(mode);
    CHECK(at::equal(bytes_of(cast_to(x, "fp8e8m0", mode)), bytes_of(x.to(type))));
  }
  const float inf = std::numeric_limits<float>::infinity();
  at::Tensor y = f32({3.0f, 3.0f * 1024, 4.0f, 0.0f, 3e38f, inf, std::numeric_limits<float>::quiet_NaN()});
  // 2^(e - 127): 3 -> floor 2 (128) / ceil 4 (129); 4 is exact; 0 -> 2^-127; past 2^127 saturates.
  CHECK(at::equal(bytes_of(cast_to(y, "fp8e8m0", "floor")), bytes_of(fp8_bits({128, 138, 129, 0, 254, 255, 255}, type))));
  CHECK(at::equal(bytes_of(cast_to(y, "fp8e8m0", "ceil")), bytes_of(fp8_bits({129, 139, 129, 0, 254, 255, 255}, type))));
  CHECK(at::equal(bytes_of(cast_to(y, "fp8e8m0", "odd")), bytes_of(fp8_bits({129, 139, 129, 0, 254, 255, 255}, type))));
  CHECK(at::equal(cast_to(fp8_bits({128, 130}, type), "fp32", "rint"), f32({2.0f, 8.0f})));
}
#endif

#endif  // PYPTO_HAS_FLOAT8
