// Elementwise ops, reductions and row/col broadcasts against their torch expressions.
#include "sim/ops/fp32_arith.h"
#include "test_ops_util.h"

#include <cmath>
#include <limits>
#include <utility>

using namespace ops_test;

TEST_CASE("binary ops on tensors and scalars match torch in the lhs dtype") {
  at::manual_seed(1);
  at::Tensor x = at::randn({4, 6}), y = at::randn({4, 6});
  CHECK(same(call("add", {T(x), T(y)}).tensor, x + y));
  CHECK(same(call("sub", {T(x), T(y)}).tensor, x - y));
  CHECK(same(call("mul", {T(x), T(y)}).tensor, x * y));
  CHECK(same(call("div", {T(x), T(y)}).tensor, x / y));
  CHECK(same(call("maximum", {T(x), T(y)}).tensor, at::maximum(x, y)));
  CHECK(same(call("minimum", {T(x), T(y)}).tensor, at::minimum(x, y)));
  CHECK(same(call("add", {T(x), F(1.5)}).tensor, x + 1.5));
  CHECK(same(call("sub", {T(x), I(2)}).tensor, x - 2));
  CHECK(same(call("mul", {T(x), F(0.25)}).tensor, x * 0.25));
  CHECK(same(call("div", {T(x), F(3.0)}).tensor, x / 3.0));
  CHECK(same(call("maximum", {T(x), F(0.0)}).tensor, at::clamp_min(x, 0.0)));
  CHECK(same(call("minimum", {T(x), F(0.5)}).tensor, at::clamp_max(x, 0.5)));

  at::Tensor h = x.to(at::kBFloat16), g = y.to(at::kBFloat16);
  Value r = call("add", {T(h), T(g)});
  CHECK((r.tensor.scalar_type() == at::kBFloat16));
  CHECK(same(r.tensor, h + g));
  CHECK(same(call("mul", {T(h), F(0.1)}).tensor, h * 0.1));

  at::Tensor n = i32({-7, 7, 9, -9});
  CHECK(same(call("div", {T(n), I(2)}).tensor, i32({-3, 3, 4, -4})));  // truncating
  CHECK(same(call("add", {T(n), I(1)}).tensor, i32({-6, 8, 10, -8})));
  CHECK(same(call("maximum", {T(n), I(0)}).tensor, i32({0, 7, 9, 0})));
}

TEST_CASE("a float scalar operand gives torch's result with a Python float, bit for bit, in every float dtype") {
  // The op takes the scalar as a float (the type fp32 / bf16 / fp16 compute in), not as a
  // double nor rounded to the tensor's dtype first; torch does the same with a Python float.
  at::manual_seed(3);
  const double scalars[] = {0.1, 1.0 / 3.0, 1.005859375, -7.25e-3, 3.0e38, 1e300, -1e-300};
  for (c10::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    CAPTURE(dtype);
    at::Tensor x = (at::randn({8, 33}) * 4).to(dtype);
    for (double s : scalars) {
      CAPTURE(s);
      CHECK(same(call("add", {T(x), F(s)}).tensor, x + s));
      CHECK(same(call("sub", {T(x), F(s)}).tensor, x - s));
      CHECK(same(call("mul", {T(x), F(s)}).tensor, x * s));
      CHECK(same(call("div", {T(x), F(s)}).tensor, x / s));
      CHECK(same(call("cmp", {T(x), F(s), I(2)}).tensor, at::lt(x, s).to(dtype)));
    }
  }
}

TEST_CASE("maximum / minimum with a scalar give torch's clamp_min / clamp_max bit for bit, NaNs and signed zeros too") {
  // Its own row loop on FP32 tiles: NaN elements stay NaN, -0.0 against a 0.0 bound stays
  // -0.0 (and 0.0 against -0.0); rows apart in
  // memory and an odd row length (the loop's tail) included. A NaN bound makes all NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  at::Tensor wide = at::randn({5, 40});
  wide.index_put_({0, 0}, nan);
  wide.index_put_({1, 3}, -0.0f);
  wide.index_put_({2, 9}, 0.0f);
  wide.index_put_({3, 17}, -inf);
  wide.index_put_({4, 18}, inf);
  const auto bits = [](const at::Tensor& t) { return t.contiguous().view(at::kInt); };
  for (const at::Tensor& x : {wide, wide.narrow(1, 0, 37), wide.narrow(1, 2, 19).t().contiguous().t()}) {
    for (double s : {0.0, -0.0, 0.5, -1.25, static_cast<double>(nan), static_cast<double>(inf), -3.0e38}) {
      CAPTURE(s);
      CHECK(at::equal(bits(call("maximum", {T(x), F(s)}).tensor), bits(at::clamp_min(x, s))));
      CHECK(at::equal(bits(call("minimum", {T(x), F(s)}).tensor), bits(at::clamp_max(x, s))));
    }
  }
}

TEST_CASE("two scalars are plain scalar arithmetic") {
  Value v = call("add", {I(2), I(3)});
  CHECK(v.kind == Value::Kind::Int);
  CHECK(v.i == 5);
  Value w = call("mul", {F(1.5), I(2)});
  CHECK(w.kind == Value::Kind::Float);
  CHECK(w.f == 3.0);
  CHECK(call("div", {I(7), I(2)}).f == 3.5);
}

TEST_CASE("mixed dtypes and misplaced operands are kernel errors naming the op") {
  at::Tensor x = at::ones({2, 2});
  CHECK_THROWS_WITH_AS(call("add", {T(x), T(x.to(at::kBFloat16))}),
                       "pl.add: lhs is fp32 but rhs is bfloat16; PyPTO has no implicit promotion, convert one side "
                       "with pl.cast",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("mul", {T(i32({1, 2})), F(0.5)}),
                       "pl.mul: cannot combine a int32 tensor with a float scalar; cast one side with pl.cast",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("sub", {F(1.0), T(x)}),
                       "pl.sub: the tensor must be the first argument (lhs), got scalar fp32 1.0 and tensor fp32 (2, 2)",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("add", {T(x), T(at::ones({3, 2}))}),
                       "pl.add: operand shapes (2, 2) and (3, 2) do not match (nor broadcast)", KernelError);
  CHECK_THROWS_WITH_AS(call("exp", {T(i32({1}))}),
                       "pl.exp: input must be a float tensor (fp32, fp16, bfloat16), got int32", KernelError);
}

TEST_CASE("unary ops match torch") {
  at::Tensor x = f32({0.25f, 1.0f, 4.0f, 9.0f});
  at::Tensor s = f32({-2.0f, 0.5f, -0.0f, 3.0f});
  CHECK(same(call("neg", {T(s)}).tensor, -s));
  CHECK(same(call("abs", {T(s)}).tensor, at::abs(s)));
  CHECK(same(call("exp", {T(s)}).tensor, at::exp(s)));
  CHECK(same(call("log", {T(x)}).tensor, at::log(x)));
  CHECK(same(call("sqrt", {T(x)}).tensor, f32({0.5f, 1.0f, 2.0f, 3.0f})));
  CHECK(same(call("rsqrt", {T(x)}).tensor, at::rsqrt(x)));
  CHECK(same(call("recip", {T(x)}).tensor, f32({4.0f, 1.0f, 0.25f, 1.0f / 9.0f})));
  CHECK(same(call("abs", {T(i32({-3, 4}))}).tensor, i32({3, 4})));
  CHECK(same(call("recip", {T(x)}, {{"high_precision", B(true)}}).tensor, at::reciprocal(x)));
}

TEST_CASE("cmp gives 0/1 in the lhs dtype for every code") {
  at::Tensor a = f32({1, 2, 3}), b = f32({2, 2, 2});
  CHECK(same(call("cmp", {T(a), T(b)}).tensor, f32({0, 1, 0})));
  CHECK(same(call("cmp", {T(a), T(b), I(1)}).tensor, f32({1, 0, 1})));
  CHECK(same(call("cmp", {T(a), T(b), I(2)}).tensor, f32({1, 0, 0})));
  CHECK(same(call("cmp", {T(a), T(b), I(3)}).tensor, f32({1, 1, 0})));
  CHECK(same(call("cmp", {T(a), T(b), I(4)}).tensor, f32({0, 0, 1})));
  CHECK(same(call("cmp", {T(a), F(2.0), I(5)}).tensor, f32({0, 1, 1})));
  CHECK(same(call("cmp", {T(i32({1, 5})), I(3), S("CmpType.GT")}).tensor, i32({0, 1})));
  CHECK_THROWS_WITH_AS(call("cmp", {T(a), T(b), I(6)}), "pl.cmp: cmp_type must be 0..5 (eq ne lt le gt ge), got 6",
                       KernelError);
}

TEST_CASE("a result written into a window goes straight there and touches nothing else") {
  at::Tensor y = at::zeros({4, 4});
  at::Tensor x = at::arange(8, at::kFloat).reshape({2, 4});
  at::Tensor win = y.narrow(0, 1, 2);
  CHECK(call_into("add", win, {T(x), F(1.0)}).empty());  // all of the window written
  CHECK(same(y.narrow(0, 1, 2), x + 1));
  CHECK(same(y.narrow(0, 0, 1), at::zeros({1, 4})));
  CHECK(same(y.narrow(0, 3, 1), at::zeros({1, 4})));
  // In place on the very window it reads (y[1:3] = y[1:3] * y[1:3]).
  call_into("mul", win, {T(win), T(win)});
  CHECK(same(y.narrow(0, 1, 2), (x + 1) * (x + 1)));
  // Dtype mismatch with the window: the same message as a plain write.
  CHECK_THROWS_WITH_AS(call_into("add", win, {T(i32({1, 2, 3, 4}).reshape({1, 4}).expand({2, 4}).contiguous()), I(1)}),
                       "the value written is int32 but the tensor is fp32; convert it with pl.cast first", KernelError);
}

TEST_CASE("elementwise results keep the operand's valid region") {
  at::Tensor x = at::ones({4, 8});
  Value r = call("exp", {TV(x, {2, 8})});
  CHECK(r.valid == std::vector<int64_t>{2, 8});
  Value s = call("add", {TV(x, {2, 8}), TV(x, {4, 5})});
  CHECK(s.valid == std::vector<int64_t>{2, 5});
  // Written into a window, only the valid region lands.
  at::Tensor y = at::zeros({4, 8});
  CHECK(call_into("mul", y, {TV(x, {2, 8}), F(3.0)}) == std::vector<int64_t>{2, 8});  // the corner written
  CHECK(same(y.narrow(0, 0, 2), at::full({2, 8}, 3.0)));
  CHECK(same(y.narrow(0, 2, 2), at::zeros({2, 8})));
}

TEST_CASE("row and column reductions keep the reduced axis") {
  at::manual_seed(2);
  at::Tensor x = at::randn({3, 5});
  CHECK(same(call("row_sum", {T(x)}).tensor, x.sum({-1}, true)));
  CHECK(same(call("row_max", {T(x)}).tensor, std::get<0>(x.max(-1, true))));
  CHECK(same(call("row_min", {T(x)}).tensor, std::get<0>(x.min(-1, true))));
  CHECK(same(call("col_sum", {T(x)}).tensor, x.sum({-2}, true)));
  CHECK(same(call("col_max", {T(x)}).tensor, std::get<0>(x.max(-2, true))));
  CHECK(same(call("col_min", {T(x)}).tensor, std::get<0>(x.min(-2, true))));
  at::Tensor n = i32({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  Value s = call("row_sum", {T(n)});
  CHECK((s.tensor.scalar_type() == at::kInt));
  CHECK(same(s.tensor, i32({6, 15}).reshape({2, 1})));
  // The padding of a partial region participates (as on hardware); the valid rows carry over.
  at::Tensor p = at::ones({2, 4});
  Value v = call("row_sum", {TV(p, {1, 2})});
  CHECK(same(v.tensor, at::full({2, 1}, 4.0)));
  CHECK(v.valid == std::vector<int64_t>{1, 1});
}

TEST_CASE("argmax / argmin give the int32 index of the first extremum along the reduced axis") {
  at::Tensor x = f32({3, 7, 7, 1, 2, 0, 0, 5}).reshape({2, 4});
  Value r = call("row_argmax", {T(x)});
  CHECK((r.tensor.scalar_type() == at::kInt));
  CHECK(same(r.tensor, i32({1, 3}).reshape({2, 1})));  // ties: the first
  CHECK(same(call("row_argmin", {T(x), T(at::empty({2, 4}))}).tensor, i32({3, 1}).reshape({2, 1})));
  CHECK(same(call("col_argmax", {T(x)}).tensor, i32({0, 0, 0, 1}).reshape({1, 4})));
  CHECK(same(call("col_argmin", {T(x)}).tensor, i32({1, 1, 1, 0}).reshape({1, 4})));
  at::manual_seed(3);
  at::Tensor big = at::randn({8, 64}, at::kBFloat16);
  CHECK(same(call("row_argmax", {T(big)}).tensor, big.argmax(-1, true).to(at::kInt)));
  CHECK(call("row_argmax", {TV(x, {1, 4})}).valid == std::vector<int64_t>{1, 1});
  CHECK_THROWS_WITH_AS(call("row_argmax", {T(x), T(at::empty({2, 2}))}),
                       "pl.row_argmax: tmp_tile must have the input's shape and dtype ((2, 4) fp32), got (2, 2) fp32",
                       KernelError);
}

TEST_CASE("fmods is the remainder with the dividend's sign") {
  at::Tensor x = f32({5.5f, -5.5f, 33.0f, 15.0f});
  CHECK(same(call("fmods", {T(x), F(16.0)}).tensor, f32({5.5f, -5.5f, 1.0f, 15.0f})));
  CHECK(same(call("fmods", {T(i32({7, -7})), I(3)}).tensor, i32({1, -1})));
  CHECK_THROWS_WITH_AS(call("fmods", {T(i32({7})), I(0)}), "pl.fmods: division by zero", KernelError);
  CHECK_THROWS_WITH_AS(call("fmods", {T(x), T(x)}), "pl.fmods: rhs must be a scalar, got tensor fp32 (4,)",
                       KernelError);
}

TEST_CASE("row_expand and col_expand broadcast a column / row vector") {
  at::manual_seed(3);
  at::Tensor t = at::randn({3, 4});
  at::Tensor rv = at::randn({3, 1}), cv = at::randn({1, 4});
  CHECK(same(call("row_expand_add", {T(t), T(rv)}).tensor, t + rv));
  CHECK(same(call("row_expand_sub", {T(t), T(rv)}).tensor, t - rv));
  CHECK(same(call("row_expand_mul", {T(t), T(rv)}).tensor, t * rv));
  CHECK(same(call("row_expand_div", {T(t), T(rv)}).tensor, t / rv));
  CHECK(same(call("row_expand_max", {T(t), T(rv)}).tensor, at::maximum(t, rv)));
  CHECK(same(call("row_expand_min", {T(t), T(rv)}).tensor, at::minimum(t, rv)));
  CHECK(same(call("row_expand_expdif", {T(t), T(rv)}).tensor, at::exp(t - rv)));
  CHECK(same(call("row_expand", {T(t), T(rv)}).tensor, rv.expand({3, 4})));
  CHECK(same(call("col_expand_add", {T(t), T(cv)}).tensor, t + cv));
  CHECK(same(call("col_expand_sub", {T(t), T(cv)}).tensor, t - cv));
  CHECK(same(call("col_expand_mul", {T(t), T(cv)}).tensor, t * cv));
  CHECK(same(call("col_expand_div", {T(t), T(cv)}).tensor, t / cv));
  CHECK(same(call("col_expand_max", {T(t), T(cv)}).tensor, at::maximum(t, cv)));
  CHECK(same(call("col_expand_min", {T(t), T(cv)}).tensor, at::minimum(t, cv)));
  CHECK(same(call("col_expand_expdif", {T(t), T(cv)}).tensor, at::exp(t - cv)));
  CHECK(same(call("col_expand", {T(t), T(cv)}).tensor, cv.expand({3, 4})));
  CHECK_THROWS_WITH_AS(call("row_expand_mul", {T(t), T(cv)}),
                       "pl.row_expand_mul: rhs must have shape (3, 1) (one value per row) for lhs (3, 4), got (1, 4)",
                       KernelError);
  // A rhs of lower rank, or with unit leading axes, broadcasts over lhs's leading axes.
  at::Tensor t4 = at::randn({1, 2, 3, 4});
  CHECK(same(call("row_expand_mul", {T(t4), T(rv)}).tensor, t4 * rv));
  CHECK(same(call("col_expand_sub", {T(t4), T(cv.reshape({1, 1, 1, 4}))}).tensor, t4 - cv));
  CHECK(same(call("row_expand", {T(t4), T(rv)}).tensor, rv.expand({1, 2, 3, 4})));
  CHECK_THROWS_WITH_AS(call("row_expand_mul", {T(t4), T(at::randn({3, 3, 1}))}),
                       "pl.row_expand_mul: rhs must have shape (1, 2, 3, 1) (one value per row) for lhs (1, 2, 3, 4), "
                       "got (3, 3, 1)",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("col_expand_mul", {T(t), T(rv)}),
                       "pl.col_expand_mul: rhs must have shape (1, 4) (one value per column) for lhs (3, 4), got (3, 1)",
                       KernelError);
}

namespace {
// Bits, so that -0.0, NaN payloads and denormals count.
at::Tensor bits(const at::Tensor& x) { return x.contiguous().view(at::kInt); }

// `x` with every fifth element one of the FP32 special values.
at::Tensor specials(at::Tensor x) {
  const float vals[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e38f, 1.0f};
  auto flat = x.view({-1});
  for (int64_t k = 0; k < flat.numel(); k += 5) flat[k] = vals[(k / 5) % 8];
  return x;
}

// ATen's add, sub, mul or div (k = 0..3) of t and v.
at::Tensor aten_arith(int k, const at::Tensor& t, const at::Tensor& v) {
  switch (k) {
    case 0: return at::add(t, v);
    case 1: return at::sub(t, v);
    case 2: return at::mul(t, v);
    default: return at::div(t, v);
  }
}
}  // namespace

TEST_CASE("row/col_expand add, sub, mul and div on FP32 tiles give ATen's bits, in any layout, in place too") {
  using pypto_golden::sim::ops::expand_fp32;
  using pypto_golden::sim::ops::Fp32Arith;
  at::manual_seed(11);
  const char* row_ops[] = {"row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div"};
  const char* col_ops[] = {"col_expand_add", "col_expand_sub", "col_expand_mul", "col_expand_div"};
  for (const auto& shape : {std::pair<int64_t, int64_t>{1, 1}, {1, 48}, {4, 48}, {16, 7}, {3, 37}}) {
    const int64_t rows = shape.first, cols = shape.second;
    CAPTURE(rows);
    CAPTURE(cols);
    // A window of a wider tile (row stride != cols), and its values with specials.
    at::Tensor wide = specials(at::randn({rows, cols + 9}));
    at::Tensor t = wide.narrow(1, 3, cols);
    at::Tensor rv = specials(at::randn({rows, 2})).narrow(1, 1, 1);  // a strided column
    at::Tensor cv = specials(at::randn({1, cols}));
    for (int k = 0; k < 4; ++k) {
      CAPTURE(k);
      const at::Tensor want_row = aten_arith(k, t, rv), want_col = aten_arith(k, t, cv);
      CHECK(at::equal(bits(call(row_ops[k], {T(t), T(rv)}).tensor), bits(want_row)));
      CHECK(at::equal(bits(call(col_ops[k], {T(t), T(cv)}).tensor), bits(want_col)));
      // Into a window of another tile, and in place over lhs itself (y[...] = op(y[...], v)).
      at::Tensor dst = at::zeros({rows + 1, cols + 4});
      call_into(row_ops[k], dst.narrow(0, 1, rows).narrow(1, 2, cols), {T(t), T(rv)});
      CHECK(at::equal(bits(dst.narrow(0, 1, rows).narrow(1, 2, cols)), bits(want_row)));
      CHECK(at::count_nonzero(dst).item<int64_t>() == at::count_nonzero(want_row).item<int64_t>());
      at::Tensor self = t.clone();
      call_into(col_ops[k], self, {T(self), T(cv)});
      CHECK(at::equal(bits(self), bits(want_col)));
    }
  }
  // The loop takes these layouts (so the checks above test it) and leaves others to ATen.
  at::Tensor t = at::randn({4, 8}), out = at::empty({4, 8});
  CHECK(expand_fp32(Fp32Arith::Add, true, out, t, at::randn({4, 1})));
  CHECK(expand_fp32(Fp32Arith::Div, false, out, t, at::randn({1, 8})));
  CHECK_FALSE(expand_fp32(Fp32Arith::Add, true, out, t.t().contiguous().t(), at::randn({4, 1})));
  CHECK_FALSE(expand_fp32(Fp32Arith::Add, false, out, t, at::randn({8, 2}).t().narrow(0, 0, 1)));
  CHECK_FALSE(expand_fp32(Fp32Arith::Add, true, out.to(at::kDouble), t.to(at::kDouble), at::randn({4, 1}, at::kDouble)));
  CHECK_FALSE(expand_fp32(Fp32Arith::Add, true, at::empty({2, 4, 8}), t.expand({2, 4, 8}), at::randn({2, 4, 1})));
}

TEST_CASE("add, sub, mul and div of FP32 tiles and scalars give ATen's bits, in any layout, in place too") {
  using pypto_golden::sim::ops::binary_fp32;
  using pypto_golden::sim::ops::Fp32Arith;
  at::manual_seed(12);
  const char* names[] = {"add", "sub", "mul", "div"};
  const double scalars[] = {1.0 / 3.0, -0.0, 1e-40, 3e38, 7.0};
  for (const auto& shape : {std::vector<int64_t>{1}, {37}, {1, 48}, {4, 48}, {16, 7}, {3, 37}}) {
    CAPTURE(shape.size());
    CAPTURE(shape.back());
    std::vector<int64_t> wider = shape;
    wider.back() += 9;
    // A window of a wider tile (row stride != cols), and its values with specials.
    at::Tensor t = specials(at::randn(wider)).narrow(-1, 3, shape.back());
    at::Tensor u = specials(at::randn(wider)).narrow(-1, 5, shape.back());
    for (int k = 0; k < 4; ++k) {
      CAPTURE(k);
      const at::Tensor want = aten_arith(k, t, u);
      CHECK(at::equal(bits(call(names[k], {T(t), T(u)}).tensor), bits(want)));
      for (double s : scalars) {
        CAPTURE(s);
        CHECK(at::equal(bits(call(names[k], {T(t), F(s)}).tensor), bits(aten_arith(k, t, at::scalar_tensor(s)))));
      }
      // Into a window of another tile, and in place over either operand.
      at::Tensor dst = at::zeros(wider);
      call_into(names[k], dst.narrow(-1, 2, shape.back()), {T(t), T(u)});
      CHECK(at::equal(bits(dst.narrow(-1, 2, shape.back())), bits(want)));
      CHECK(at::count_nonzero(dst).item<int64_t>() == at::count_nonzero(want).item<int64_t>());
      at::Tensor lhs = t.clone(), rhs = u.clone();
      call_into(names[k], lhs, {T(lhs), T(u)});
      call_into(names[k], rhs, {T(t), T(rhs)});
      CHECK(at::equal(bits(lhs), bits(want)));
      CHECK(at::equal(bits(rhs), bits(want)));
    }
  }
  // The loop takes these layouts (so the checks above test it) and leaves others to ATen,
  // among them an out that overlaps an operand other than exactly.
  at::Tensor t = at::randn({4, 8}), out = at::empty({4, 8});
  CHECK(binary_fp32(Fp32Arith::Add, out, t, nullptr, 1.0f));
  CHECK(binary_fp32(Fp32Arith::Div, out, t, &t, 0.0f));
  CHECK(binary_fp32(Fp32Arith::Mul, t, t, nullptr, 2.0f));
  CHECK_FALSE(binary_fp32(Fp32Arith::Add, out, t.t().contiguous().t(), nullptr, 1.0f));
  CHECK_FALSE(binary_fp32(Fp32Arith::Add, out.to(at::kDouble), t.to(at::kDouble), nullptr, 1.0f));
  CHECK_FALSE(binary_fp32(Fp32Arith::Add, at::empty({2, 4, 8}), t.expand({2, 4, 8}), nullptr, 1.0f));
  at::Tensor row = at::randn({9, 8});
  CHECK_FALSE(binary_fp32(Fp32Arith::Add, row.narrow(0, 1, 8), row.narrow(0, 0, 8), nullptr, 1.0f));
  CHECK_FALSE(binary_fp32(Fp32Arith::Add, out, t, &row, 1.0f));  // shapes differ: a broadcast
}
