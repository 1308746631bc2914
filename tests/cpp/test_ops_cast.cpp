// pl.cast: every rounding mode on ties and negative values, saturation, float narrowing.
#include "test_ops_util.h"

#include <limits>

using namespace ops_test;

namespace {

at::Tensor cast_to(const at::Tensor& x, const char* dtype, const char* mode) {
  return call("cast", {T(x), D(dtype), S(mode)}).tensor;
}

at::Tensor bf16_bits(std::vector<int> bits) {
  std::vector<int16_t> b(bits.begin(), bits.end());
  return at::tensor(b, at::kShort).view(at::kBFloat16);
}

}  // namespace

TEST_CASE("float -> int32 in every mode on .5 ties and negative values") {
  at::Tensor x = f32({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f, -2.7f});
  CHECK(same(cast_to(x, "int32", "rint"), i32({-2, -2, 0, 0, 2, 2, 3, -3})));
  CHECK(same(cast_to(x, "int32", "none"), i32({-2, -2, 0, 0, 2, 2, 3, -3})));
  CHECK(same(cast_to(x, "int32", "round"), i32({-3, -2, -1, 1, 2, 3, 3, -3})));
  CHECK(same(cast_to(x, "int32", "floor"), i32({-3, -2, -1, 0, 1, 2, 2, -3})));
  CHECK(same(cast_to(x, "int32", "ceil"), i32({-2, -1, 0, 1, 2, 3, 3, -2})));
  CHECK(same(cast_to(x, "int32", "trunc"), i32({-2, -1, 0, 0, 1, 2, 2, -2})));
  CHECK(same(cast_to(x, "int32", "odd"), i32({-3, -1, -1, 1, 1, 3, 3, -3})));
  // The default mode is "round"; modes also go by code.
  CHECK(same(call("cast", {T(x), D("int32")}).tensor, i32({-3, -2, -1, 1, 2, 3, 3, -3})));
  CHECK(same(call("cast", {T(x), D("int32"), I(1)}).tensor, i32({-2, -2, 0, 0, 2, 2, 3, -3})));
  CHECK(same(call("cast", {T(x), D("int32"), S("RoundMode.floor")}).tensor, i32({-3, -2, -1, 0, 1, 2, 2, -3})));
  // 0.49999997 is not a tie: round gives 0 (x + 0.5 would round up to 1.0 in fp32).
  CHECK(same(cast_to(f32({0.49999997f, -0.49999997f}), "int32", "round"), i32({0, 0})));
  CHECK_THROWS_WITH_AS(cast_to(x, "int32", "nearest"),
                       "pl.cast: unknown mode 'nearest' (none, rint, round, floor, ceil, trunc, odd)", KernelError);
}

TEST_CASE("float -> integer saturates; NaN becomes 0; narrowing integers saturate") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  at::Tensor x = f32({3e9f, -3e9f, nan, inf, -inf, 2147483520.0f});
  CHECK(same(cast_to(x, "int32", "rint"),
             i32({2147483647, -2147483647 - 1, 0, 2147483647, -2147483647 - 1, 2147483520})));
  at::Tensor y = f32({300.0f, -300.0f, 126.6f, -5.0f});
  CHECK(same(cast_to(y, "int8", "round"), at::tensor(std::vector<int8_t>{127, -128, 127, -5}, at::kChar)));
  CHECK(same(cast_to(y, "uint8", "round"), at::tensor(std::vector<uint8_t>{255, 0, 127, 0}, at::kByte)));
  CHECK(same(cast_to(i32({200, -200, 5}), "int8", "round"), at::tensor(std::vector<int8_t>{127, -128, 5}, at::kChar)));
  CHECK(same(cast_to(f32({1e19f, -1e19f}), "int64", "round"),
             i64({std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()})));
  // uint32 is stored widened (int64) and saturates to [0, 2^32 - 1].
  CHECK(same(cast_to(f32({-1.0f, 5e9f, 7.0f}), "uint32", "round"), i64({0, 4294967295LL, 7})));
  CHECK(same(cast_to(f32({0.0f, -2.0f, 0.5f}), "bool", "round"), at::tensor(std::vector<uint8_t>{0, 1, 1}, at::kByte).to(at::kBool)));
}

TEST_CASE("fp32 -> bf16 rounds by the mode at the bf16 precision") {
  // 1 + 2^-8 is halfway between bf16 1.0 (0x3F80) and 1.0078125 (0x3F81).
  at::Tensor tie = f32({1.00390625f, -1.00390625f, 1.01171875f});  // the last: halfway 0x3F81 / 0x3F82
  CHECK(same(cast_to(tie, "bfloat16", "rint"), bf16_bits({0x3F80, 0xBF80, 0x3F82})));
  CHECK(same(cast_to(tie, "bfloat16", "round"), bf16_bits({0x3F81, 0xBF81, 0x3F82})));
  at::Tensor near = f32({1.001953125f, -1.001953125f});  // 1 + 2^-9: below the tie
  CHECK(same(cast_to(near, "bfloat16", "round"), bf16_bits({0x3F80, 0xBF80})));
  CHECK(same(cast_to(near, "bfloat16", "floor"), bf16_bits({0x3F80, 0xBF81})));
  CHECK(same(cast_to(near, "bfloat16", "ceil"), bf16_bits({0x3F81, 0xBF80})));
  CHECK(same(cast_to(near, "bfloat16", "trunc"), bf16_bits({0x3F80, 0xBF80})));
  CHECK(same(cast_to(near, "bfloat16", "odd"), bf16_bits({0x3F81, 0xBF81})));
  // Exact values stay, whatever the mode.
  CHECK(same(cast_to(f32({1.0f, -2.5f}), "bfloat16", "odd"), bf16_bits({0x3F80, 0xC020})));
  // rint equals torch's conversion (round to nearest even).
  at::manual_seed(9);
  at::Tensor r = at::randn({1000});
  CHECK(same(cast_to(r, "bfloat16", "rint"), r.to(at::kBFloat16)));
  CHECK(same(cast_to(r, "fp16", "none"), r.to(at::kHalf)));
}

TEST_CASE("fp32 -> fp16 overflow goes to inf only when the mode rounds there") {
  const float inf = std::numeric_limits<float>::infinity();
  at::Tensor big = f32({70000.0f, -70000.0f, 65519.0f, 65520.0f});
  CHECK(same(cast_to(big, "fp16", "rint").to(at::kFloat), f32({inf, -inf, 65504.0f, inf})));
  CHECK(same(cast_to(big, "fp16", "trunc").to(at::kFloat), f32({65504.0f, -65504.0f, 65504.0f, 65504.0f})));
  CHECK(same(cast_to(big, "fp16", "floor").to(at::kFloat), f32({65504.0f, -inf, 65504.0f, 65504.0f})));
  CHECK(same(cast_to(big, "fp16", "ceil").to(at::kFloat), f32({inf, -65504.0f, inf, inf})));
}

TEST_CASE("widening casts are exact and int32 -> fp32 rounds by the mode") {
  at::manual_seed(10);
  at::Tensor h = at::randn({64}).to(at::kBFloat16);
  CHECK(same(cast_to(h, "fp32", "round"), h.to(at::kFloat)));
  at::Tensor q = at::randint(-128, 128, {64}, at::TensorOptions().dtype(at::kChar));
  CHECK(same(cast_to(q, "fp16", "round"), q.to(at::kHalf)));
  CHECK(same(cast_to(q, "int32", "trunc"), q.to(at::kInt)));
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2 in fp32.
  at::Tensor n = i32({16777217, -16777217, 16777219});
  CHECK(same(cast_to(n, "fp32", "rint"), f32({16777216.0f, -16777216.0f, 16777220.0f})));
  CHECK(same(cast_to(n, "fp32", "round"), f32({16777218.0f, -16777218.0f, 16777220.0f})));
  CHECK(same(cast_to(n, "fp32", "trunc"), f32({16777216.0f, -16777216.0f, 16777218.0f})));
}

TEST_CASE("int8 and uint8 -> fp32 give every byte value exactly, in any row layout") {
  // Every byte value, in rows of 37 (vector blocks and a scalar tail).
  at::Tensor all = at::arange(0, 256 * 37, at::TensorOptions().dtype(at::kInt)).remainder(256);
  at::Tensor u = all.to(at::kByte).reshape({256, 37});
  at::Tensor q = (all - 128).to(at::kChar).reshape({256, 37});
  CHECK(same(cast_to(u, "fp32", "round"), u.to(at::kInt).to(at::kFloat)));
  CHECK(same(cast_to(q, "fp32", "round"), q.to(at::kInt).to(at::kFloat)));
  // Rows of a wider tensor, a transposed view, a 3-D tensor, and a window of the result.
  at::Tensor rows = q.narrow(1, 3, 30);
  CHECK(same(cast_to(rows, "fp32", "round"), rows.to(at::kInt).to(at::kFloat)));
  CHECK(same(cast_to(q.t(), "fp32", "round"), q.t().to(at::kInt).to(at::kFloat)));
  at::Tensor cube = q.reshape({16, 16, 37});
  CHECK(same(cast_to(cube, "fp32", "round"), cube.to(at::kInt).to(at::kFloat)));
  at::Tensor strided = cube.narrow(2, 5, 29).narrow(1, 1, 9);
  CHECK(same(cast_to(strided, "fp32", "round"), strided.to(at::kInt).to(at::kFloat)));
  at::Tensor y = at::zeros({256, 40});
  call_into("cast", y.narrow(1, 2, 37), {T(u), D("fp32")});
  CHECK(same(y.narrow(1, 2, 37), u.to(at::kInt).to(at::kFloat)));
  CHECK(y.narrow(1, 0, 2).count_nonzero().item<int64_t>() == 0);
  CHECK(y.narrow(1, 39, 1).count_nonzero().item<int64_t>() == 0);
}

TEST_CASE("bf16 -> fp32 gives every bit pattern exactly, NaN payloads included, in any row layout") {
  // Every 16-bit pattern, in rows of 37 (two-vector blocks and a scalar tail).
  at::Tensor codes = (at::arange(0, 37 * 1772, at::TensorOptions().dtype(at::kInt)).remainder(65536) - 32768);
  at::Tensor b = codes.to(at::kShort).view(at::kBFloat16).reshape({1772, 37});
  // FP32 bits = BF16 bits << 16, and that is ATen's conversion.
  auto widened_bits = [](const at::Tensor& t) {
    return t.contiguous().view(at::kShort).to(at::kInt).bitwise_and(0xFFFF).bitwise_left_shift(16);
  };
  auto bits = [](const at::Tensor& f) { return f.contiguous().view(at::kInt); };
  at::Tensor f = cast_to(b, "fp32", "round");
  CHECK(same(bits(f), widened_bits(b)));
  CHECK(same(bits(f), bits(b.to(at::kFloat))));
  // Rows of a wider tensor, a transposed view, a 3-D window, and a window of the result.
  at::Tensor rows = b.narrow(1, 3, 30);
  CHECK(same(bits(cast_to(rows, "fp32", "round")), widened_bits(rows)));
  CHECK(same(bits(cast_to(b.t(), "fp32", "round")), widened_bits(b.t())));
  at::Tensor strided = b.narrow(0, 0, 1764).reshape({36, 49, 37}).narrow(2, 5, 29).narrow(1, 1, 9);
  CHECK(same(bits(cast_to(strided, "fp32", "round")), widened_bits(strided)));
  at::Tensor y = at::zeros({1772, 40});
  call_into("cast", y.narrow(1, 2, 37), {T(b), D("fp32")});
  CHECK(same(bits(y.narrow(1, 2, 37)), widened_bits(b)));
  CHECK(y.narrow(1, 0, 2).count_nonzero().item<int64_t>() == 0);
  CHECK(y.narrow(1, 39, 1).count_nonzero().item<int64_t>() == 0);
}

TEST_CASE("scalar casts use the same rules and give a scalar of the target dtype") {
  Value a = call("cast", {Value::from_float(2.5), D("int32")});
  CHECK(a.kind == Value::Kind::Int);
  CHECK((a.stype == at::kInt));
  CHECK(a.i == 3);
  CHECK(call("cast", {Value::from_float(-2.5), D("int32")}).i == -3);
  CHECK(call("cast", {Value::from_float(-2.5), D("int32"), S("rint")}).i == -2);
  CHECK(call("cast", {Value::from_float(1e10), D("int32")}).i == 2147483647);
  Value f = call("cast", {I(7), D("fp32")});
  CHECK(f.kind == Value::Kind::Float);
  CHECK(f.f == 7.0);
  Value b = call("cast", {Value::from_float(1.00390625), D("bfloat16")});
  CHECK((b.stype == at::kBFloat16));
  CHECK(b.f == 1.0078125);
  CHECK(call("cast", {I(3), D("index")}).i == 3);
}

TEST_CASE("cast keeps the valid region and writes straight into a window") {
  at::Tensor y = at::zeros({2, 4}, at::kInt);
  call_into("cast", y, {T(f32({0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f}).reshape({2, 4})), D("int32"), S("rint")});
  CHECK(same(y, i32({0, 2, 2, 4, 4, 6, 6, 8}).reshape({2, 4})));
  Value v = call("cast", {TV(at::ones({2, 4}), {1, 4}), D("bfloat16")});
  CHECK(v.valid == std::vector<int64_t>{1, 4});
}
