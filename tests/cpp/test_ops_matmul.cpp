// The matmul family: FP32 / INT32 accumulation, out_dtype, transposes, in-place matmul_acc.
#include "test_ops_util.h"

#include "sim/ops/direct_gemm.h"
#include "sim/ops/int8_gemm.h"
#include "tensor/lazy_copy.h"

#include <dlfcn.h>

using namespace ops_test;

namespace {

// INT8 products take the integer gemm where it is usable and the FP32 chunks otherwise:
// each test of them runs both ways, whatever this CPU has.
struct Int8Paths {
  ~Int8Paths() { pypto_golden::sim::ops::disable_int8_gemm_for_tests(false); }
  static void use_fp32(bool fp32) { pypto_golden::sim::ops::disable_int8_gemm_for_tests(fp32); }
};

// BF16 products the same: MKL's BF16 gemm where it is usable, widened operands and sgemm
// otherwise.
struct Bf16Paths {
  ~Bf16Paths() { pypto_golden::sim::ops::disable_bf16_gemm_for_tests(false); }
  static void use_fp32(bool fp32) { pypto_golden::sim::ops::disable_bf16_gemm_for_tests(fp32); }
};

// BF16 operands whose values are small integers: every sum of their products is exact in
// FP32, so any gemm, in any order, gives the widened product's bits.
at::Tensor small_integers(at::IntArrayRef shape) {
  return at::randint(-8, 9, shape).to(at::kBFloat16);
}

}  // namespace

TEST_CASE("matmul matches torch for fp32, with a_trans / b_trans") {
  at::manual_seed(4);
  at::Tensor a = at::randn({5, 7}), b = at::randn({7, 3});
  CHECK(same(call("matmul", {T(a), T(b)}).tensor, at::mm(a, b)));
  at::Tensor at_ = a.t().contiguous(), bt = b.t().contiguous();
  CHECK(same(call("matmul", {T(at_), T(b)}, {{"a_trans", B(true)}}).tensor, at::mm(a, b)));
  // A transposed rhs is the product with the transposed view: BLAS may sum in another order
  // for it than for a contiguous rhs (MKL's AVX-512 kernels do), so the bits are compared
  // with that product.
  CHECK(same(call("matmul", {T(a), T(bt)}, {{"b_trans", B(true)}}).tensor, at::mm(a, bt.t())));
  CHECK(same(call("matmul", {T(at_), T(bt)}, {{"a_trans", B(true)}, {"b_trans", B(true)}}).tensor,
             at::mm(at_.t(), bt.t())));
  // 1-D forms and a batched form follow numpy's matmul.
  at::Tensor v = at::randn({7});
  CHECK(same(call("matmul", {T(a), T(v)}).tensor, at::mv(a, v)));
  CHECK(call("matmul", {T(v), T(v)}).tensor.dim() == 0);
  at::Tensor ba = at::randn({2, 5, 7});
  CHECK(same(call("matmul", {T(ba), T(b)}).tensor, at::matmul(ba, b)));
  CHECK_THROWS_WITH_AS(call("matmul", {T(a), T(a)}),
                       "pl.matmul: inner dimensions differ: lhs (5, 7) and rhs (5, 7) give K = 7 vs 5", KernelError);
  CHECK_THROWS_WITH_AS(call("matmul", {T(a), T(b.to(at::kBFloat16))}),
                       "pl.matmul: lhs is fp32 but rhs is bfloat16; PyPTO has no implicit promotion, convert one side "
                       "with pl.cast",
                       KernelError);
}

TEST_CASE("bf16 windows of larger tensors, transposed, accumulate in FP32 like the plain product") {
  Bf16Paths paths;
  Bf16Paths::use_fp32(true);
  at::manual_seed(6);
  // Tiles of larger tensors (row stride 40), as a kernel's loads give them; b_trans of an
  // [N, K] window is a view whose rows are strided.
  at::Tensor big_a = at::randn({8, 40}).to(at::kBFloat16), big_w = at::randn({24, 40}).to(at::kBFloat16);
  at::Tensor a = big_a.narrow(1, 8, 16), w = big_w.narrow(0, 4, 12).narrow(1, 8, 16);
  at::Tensor want = at::mm(a.to(at::kFloat), w.to(at::kFloat).t());
  CHECK(same(call("matmul", {T(a), T(w)}, {{"b_trans", B(true)}, {"out_dtype", D("fp32")}}).tensor, want));
  at::Tensor at_ = big_a.t().narrow(0, 8, 16);  // [K, M] with a_trans: lhs stored column by column
  CHECK(same(call("matmul", {T(at_), T(w)}, {{"a_trans", B(true)}, {"b_trans", B(true)}, {"out_dtype", D("fp32")}})
                 .tensor,
             want));
}

TEST_CASE("a matmul's valid region is lhs's valid rows by rhs's valid columns") {
  at::manual_seed(5);
  at::Tensor a = at::randn({4, 6}), b = at::randn({3, 6});
  // b_trans: rhs [3, 6] with 2 valid rows gives 2 valid columns.
  Value p = call("matmul", {TV(a, {3, 6}), TV(b, {2, 6})}, {{"b_trans", B(true)}});
  CHECK(p.valid == std::vector<int64_t>{3, 2});
  CHECK(same(p.tensor, at::mm(a, b.t())));
  Value q = call("matmul", {TV(a.t().contiguous(), {6, 1}), T(b.t().contiguous())}, {{"a_trans", B(true)}});
  CHECK(q.valid == std::vector<int64_t>{1, 3});
  // A batched product keeps its batch axes whole.
  Value r = call("matmul", {TV(a, {2, 6}), T(at::randn({1, 3, 6}))}, {{"b_trans", B(true)}});
  CHECK(r.valid == std::vector<int64_t>{1, 2, 3});
  CHECK(call("matmul", {T(a), T(b)}, {{"b_trans", B(true)}}).fully_valid());
}

TEST_CASE("bf16 matmul accumulates in fp32 and converts to out_dtype or the operand dtype") {
  Bf16Paths paths;
  Bf16Paths::use_fp32(true);
  at::manual_seed(5);
  at::Tensor a = at::randn({4, 64}).to(at::kBFloat16), b = at::randn({64, 8}).to(at::kBFloat16);
  at::Tensor ref = at::mm(a.to(at::kFloat), b.to(at::kFloat));
  Value r = call("matmul", {T(a), T(b)}, {{"out_dtype", D("fp32")}});
  CHECK((r.tensor.scalar_type() == at::kFloat));
  CHECK(same(r.tensor, ref));
  Value p = call("matmul", {T(a), T(b)});
  CHECK((p.tensor.scalar_type() == at::kBFloat16));
  CHECK(same(p.tensor, ref.to(at::kBFloat16)));
}

TEST_CASE("BF16 products go to MKL's BF16 gemm where it is usable, in every layout the widened path takes") {
  namespace ops = pypto_golden::sim::ops;
  Bf16Paths paths;
  const bool usable = ops::bf16_gemm_usable();
  MESSAGE("MKL's BF16 gemm is " << std::string(usable ? "" : "not ") << "usable on this CPU");
  // Not usable only where the library or the CPU lacks it, never because its probe failed.
  __builtin_cpu_init();
  CHECK(usable == (dlsym(RTLD_DEFAULT, "gemm_bf16bf16f32") != nullptr && __builtin_cpu_supports("avx512bf16")));
  at::manual_seed(11);
  // Windows of larger tensors: row-major, and stored column by column (a_trans / b_trans).
  const at::Tensor big_a = small_integers({24, 70}), big_b = small_integers({90, 40});
  const at::Tensor a = big_a.narrow(0, 3, 17).narrow(1, 5, 60), b = big_b.narrow(0, 7, 60).narrow(1, 2, 33);
  const at::Tensor a_cols = big_a.t().contiguous().narrow(0, 5, 60).narrow(1, 3, 17).t();
  const at::Tensor b_cols = big_b.t().contiguous().narrow(0, 2, 33).narrow(1, 7, 60).t();
  const at::Tensor want = at::mm(a.to(at::kFloat), b.to(at::kFloat));
  for (const at::Tensor* l : {&a, &a_cols})
    for (const at::Tensor* r : {&b, &b_cols}) {
      at::Tensor c = at::empty({17, 33});
      CHECK(ops::direct_bf16_gemm(*l, *r, c, false) == usable);
      if (usable) CHECK(same(c, want));
      at::Tensor acc = at::full({17, 33}, 0.5f);
      CHECK(ops::direct_bf16_gemm(*l, *r, acc, true) == usable);  // matmul_acc: acc += a @ b
      if (usable) CHECK(same(acc, want + 0.5f));
    }
  // A single row (decode's form) and a [1, K, N] weight window.
  const at::Tensor row = a.narrow(0, 0, 1), w = b.unsqueeze(0);
  at::Tensor c1 = at::empty({1, 33}), c3 = at::empty({1, 17, 33});
  CHECK(ops::direct_bf16_gemm(row, b, c1, false) == usable);
  CHECK(ops::direct_bf16_gemm(a, w, c3, false) == usable);
  if (usable) {
    CHECK(same(c1, want.narrow(0, 0, 1)));
    CHECK(same(c3, want.unsqueeze(0)));
  }
  // Random operands: FP32 sums in MKL's order, within FP32 rounding of the widened sgemm's.
  const at::Tensor ra = at::randn({16, 4096}).to(at::kBFloat16), rb = at::randn({4096, 64}).to(at::kBFloat16);
  const at::Tensor widened = at::mm(ra.to(at::kFloat), rb.to(at::kFloat));
  const at::Tensor got = call("matmul", {T(ra), T(rb)}, {{"out_dtype", D("fp32")}}).tensor;
  CHECK(at::allclose(got, widened, 1e-5, 1e-3));
  // Left to the widened path: FP32 operands, an FP16 one, a unit N, two batched operands, a
  // BF16 accumulator; and all of them while the tests turn it off.
  at::Tensor c = at::empty({17, 33});
  CHECK_FALSE(ops::direct_bf16_gemm(a.to(at::kFloat), b.to(at::kFloat), c, false));
  CHECK_FALSE(ops::direct_bf16_gemm(a.to(at::kHalf), b.to(at::kHalf), c, false));
  at::Tensor col = at::empty({17, 1});
  CHECK_FALSE(ops::direct_bf16_gemm(a, b.narrow(1, 0, 1), col, false));
  at::Tensor cb = at::empty({2, 17, 33});
  CHECK_FALSE(ops::direct_bf16_gemm(at::stack({a, a}), at::stack({b, b}), cb, false));
  at::Tensor half_acc = at::empty({17, 33}, at::kBFloat16);
  CHECK_FALSE(ops::direct_bf16_gemm(a, b, half_acc, false));
  Bf16Paths::use_fp32(true);
  CHECK_FALSE(ops::direct_bf16_gemm(a, b, c, false));
  // Either path gives the same product where the sums are exact.
  CHECK(same(call("matmul", {T(a_cols), T(b_cols)}, {{"out_dtype", D("fp32")}}).tensor, want));
}

TEST_CASE("int8 matmul accumulates exactly in int32") {
  Int8Paths paths;
  for (bool fp32 : {false, true}) {
    CAPTURE(fp32);
    Int8Paths::use_fp32(fp32);
    at::manual_seed(6);
    at::Tensor a = at::randint(-128, 128, {6, 300}, at::TensorOptions().dtype(at::kChar));
    at::Tensor b = at::randint(-128, 128, {300, 5}, at::TensorOptions().dtype(at::kChar));
    at::Tensor ref = at::mm(a.to(at::kLong), b.to(at::kLong)).to(at::kInt);
    Value r = call("matmul", {T(a), T(b)}, {{"out_dtype", D("int32")}});
    CHECK(same(r.tensor, ref));
    // The extreme case: every product is (-128)^2, and the sum still fits int32.
    at::Tensor m = at::full({1, 300}, -128, at::TensorOptions().dtype(at::kChar));
    CHECK(call("matmul", {T(m), T(m.t().contiguous())}, {{"out_dtype", D("int32")}}).tensor.item<int32_t>() ==
          300 * 16384);
    // INT32 -> FP32 conversion of the accumulator.
    CHECK(same(call("matmul", {T(a), T(b)}, {{"out_dtype", D("fp32")}}).tensor, ref.to(at::kFloat)));
  }
}

TEST_CASE("int8 and uint8 matmuls stay exact when K takes the sums far past FP32's integers") {
  Int8Paths paths;
  for (bool fp32 : {false, true}) {
    CAPTURE(fp32);
    Int8Paths::use_fp32(fp32);
    const auto i8 = at::TensorOptions().dtype(at::kChar);
    const auto u8 = at::TensorOptions().dtype(at::kByte);
    auto exact = [](const at::Tensor& l, const at::Tensor& r) {
      return at::matmul(l.to(at::kLong), r.to(at::kLong)).to(at::kInt);
    };
    // Odd products summed past 2^24: a sum FP32 cannot hold at every step.
    at::Tensor m = at::full({1, 3001}, -127, i8), n = at::full({3001, 1}, 127, i8);
    Value r = call("matmul", {T(m), T(n)}, {{"out_dtype", D("int32")}});
    CHECK(r.tensor.item<int32_t>() == -3001 * 16129);
    at::Tensor u = at::full({2, 1001}, 255, u8), v = at::full({1001, 3}, 253, u8);
    CHECK(same(call("matmul", {T(u), T(v)}, {{"out_dtype", D("int32")}}).tensor, exact(u, v)));
    at::manual_seed(8);
    at::Tensor a = at::randint(-128, 128, {5, 4099}, i8), b = at::randint(-128, 128, {4099, 7}, i8);
    CHECK(same(call("matmul", {T(a), T(b)}, {{"out_dtype", D("int32")}}).tensor, exact(a, b)));
    // Transposed operands and batch axes take the same chunks of K.
    at::Tensor at_ = a.t().contiguous(), bt = b.t().contiguous();
    CHECK(same(call("matmul", {T(at_), T(bt)}, {{"out_dtype", D("int32")}, {"a_trans", B(true)}, {"b_trans", B(true)}})
                   .tensor,
               exact(a, b)));
    at::Tensor ba = at::randint(-128, 128, {2, 3, 2100}, i8), bb = at::randint(-128, 128, {2, 2100, 4}, i8);
    CHECK(same(call("matmul", {T(ba), T(bb)}, {{"out_dtype", D("int32")}}).tensor, exact(ba, bb)));
    at::Tensor stored = bb.transpose(-1, -2).contiguous();  // [2, 4, K]: b_trans of a batched weight
    CHECK(same(call("matmul", {T(ba), T(stored)}, {{"out_dtype", D("int32")}, {"b_trans", B(true)}}).tensor,
               exact(ba, bb)));
    // Past INT32: K = 131072 products of (-128)^2 sum to 2^31, which wraps as the hardware
    // accumulator does.
    at::Tensor w = at::full({1, 131072}, -128, i8);
    CHECK(call("matmul", {T(w), T(w.t())}, {{"out_dtype", D("int32")}}).tensor.item<int32_t>() == INT32_MIN);
  }
}

TEST_CASE("INT8 products of 2-D and batched operands go to the integer gemm where it is usable") {
  namespace ops = pypto_golden::sim::ops;
  Int8Paths paths;
  const auto i8 = at::TensorOptions().dtype(at::kChar);
  at::manual_seed(9);
  at::Tensor a = at::randint(-128, 128, {5, 40}, i8), b = at::randint(-128, 128, {40, 3}, i8);
  const at::Tensor exact = at::mm(a.to(at::kLong), b.to(at::kLong)).to(at::kInt);
  const bool usable = ops::int8_gemm_usable();
  MESSAGE("the integer gemm is " << std::string(usable ? "" : "not ") << "usable on this CPU");
  std::optional<at::Tensor> prod = ops::int8_gemm(a, b);
  CHECK(prod.has_value() == usable);
  if (usable) CHECK(same(*prod, exact));
  at::Tensor ba = at::randint(-128, 128, {2, 5, 40}, i8), bb = at::randint(-128, 128, {2, 40, 3}, i8);
  prod = ops::int8_gemm(ba, bb.transpose(1, 2).contiguous().transpose(1, 2));
  CHECK(prod.has_value() == usable);
  if (usable) CHECK(same(*prod, at::matmul(ba.to(at::kLong), bb.to(at::kLong)).to(at::kInt)));
  // A copy-on-write operand (an In weight shared with the host) is read, not copied.
  const at::Tensor shared = pypto_golden::lazy_copy(b);
  prod = ops::int8_gemm(a, shared);
  CHECK(prod.has_value() == usable);
  CHECK(pypto_golden::still_shared(shared, b));
  if (usable) CHECK(same(*prod, exact));
  // Batches broadcast as at::matmul's: a 2-D tile against a [1, K, N] weight window (the
  // corpus's routed experts), a batch against a 2-D operand, a batch of 1 against one of 2.
  auto batched = [](const at::Tensor& l, const at::Tensor& r) {
    return at::matmul(l.to(at::kLong), r.to(at::kLong)).to(at::kInt);
  };
  const at::Tensor w1 = bb.narrow(0, 1, 1);
  for (const auto& [l, r] : {std::pair{a, w1}, std::pair{ba, b}, std::pair{a.unsqueeze(0), bb}, std::pair{ba, w1}}) {
    prod = ops::int8_gemm(l, r);
    CHECK(prod.has_value() == usable);
    if (usable) CHECK(same(*prod, batched(l, r)));
  }
  // Left to the FP32 chunks: uint8, a 1-D operand, 4-D operands, batches that do not pair;
  // and all of them while the tests turn it off.
  CHECK_FALSE(ops::int8_gemm(a.to(at::kByte), b.to(at::kByte)).has_value());
  CHECK_FALSE(ops::int8_gemm(a, b.select(1, 0)).has_value());
  CHECK_FALSE(ops::int8_gemm(ba.unsqueeze(0), bb.unsqueeze(0)).has_value());
  CHECK_FALSE(ops::int8_gemm(ba, at::randint(-128, 128, {3, 40, 3}, i8)).has_value());
  CHECK_FALSE(ops::int8_gemm(a.narrow(0, 0, 0), b).has_value());  // empty: the FP32 path's zeros
  CHECK(call("matmul", {T(a.narrow(1, 0, 0)), T(b.narrow(0, 0, 0))}, {{"out_dtype", D("int32")}}).tensor.equal(
      at::zeros({5, 3}, at::TensorOptions().dtype(at::kInt))));
  Int8Paths::use_fp32(true);
  CHECK_FALSE(ops::int8_gemm(a, b).has_value());
}

TEST_CASE("matmul_acc adds in place into its accumulator; init_cond overwrites") {
  at::manual_seed(7);
  at::Tensor a = at::randn({4, 8}).to(at::kBFloat16), b = at::randn({8, 3}).to(at::kBFloat16);
  at::Tensor prod = at::mm(a.to(at::kFloat), b.to(at::kFloat));
  at::Tensor acc = at::ones({4, 3});
  Value r = call("matmul_acc", {T(acc), T(a), T(b)});
  CHECK(r.tensor.is_same(acc));
  CHECK(same(acc, at::addmm(at::ones({4, 3}), a.to(at::kFloat), b.to(at::kFloat))));
  call("matmul_acc", {T(acc), T(a), T(b)}, {{"init_cond", B(true)}});
  CHECK(same(acc, prod));
  call("matmul_acc", {T(acc), T(a), T(b)}, {{"init_cond", B(false)}});
  CHECK(same(acc, at::addmm(prod, a.to(at::kFloat), b.to(at::kFloat))));
  // Integer operands accumulate into INT32.
  at::Tensor ia = i32({1, 2, 3, 4}).reshape({2, 2}).to(at::kChar);
  at::Tensor iacc = i32({10, 20, 30, 40}).reshape({2, 2});
  call("matmul_acc", {T(iacc), T(ia), T(ia)});
  CHECK(same(iacc, i32({17, 30, 45, 62}).reshape({2, 2})));
  CHECK_THROWS_WITH_AS(call("matmul_acc", {T(at::ones({4, 3}).to(at::kBFloat16)), T(a), T(b)}),
                       "pl.matmul_acc: the accumulator must be fp32 for bfloat16 operands, got bfloat16 (start it "
                       "with pl.matmul(..., out_dtype=pl.FP32))",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("matmul_acc", {T(at::ones({4, 4})), T(a), T(b)}),
                       "pl.matmul_acc: the accumulator has shape (4, 4) but lhs @ rhs has shape (4, 3)", KernelError);
}

TEST_CASE("a matmul written into a window computes straight into it") {
  at::manual_seed(8);
  at::Tensor c = at::zeros({6, 6});
  at::Tensor a = at::randn({2, 5}), b = at::randn({5, 3});
  call_into("matmul", c.narrow(0, 2, 2).narrow(1, 3, 3), {T(a), T(b)});
  CHECK(same(c.narrow(0, 2, 2).narrow(1, 3, 3), at::mm(a, b)));
  at::Tensor rest = c.clone();
  rest.narrow(0, 2, 2).narrow(1, 3, 3).zero_();
  CHECK(same(rest, at::zeros({6, 6})));
}

TEST_CASE("an FP32 product that is one 2-D gemm has the bits of ATen's matmul, in every layout") {
  at::manual_seed(11);
  // What pl.matmul computed before products went to sgemm directly: at::mm_out for two
  // matrices, at::matmul_out otherwise, into a contiguous result.
  auto aten = [](const at::Tensor& l, const at::Tensor& r) {
    at::Tensor out = at::empty(at::infer_size(l.sizes().slice(0, l.dim() - 2), r.sizes().slice(0, r.dim() - 2)));
    std::vector<int64_t> shape = out.sizes().vec();
    shape.push_back(l.size(-2));
    shape.push_back(r.size(-1));
    out = at::empty(shape);
    if (l.dim() == 2 && r.dim() == 2) return at::mm_out(out, l, r);
    return at::matmul_out(out, l, r);
  };
  int cases = 0;
  for (int64_t m : {1, 2, 16, 33})
    for (int64_t n : {1, 3, 32})
      for (int64_t k : {1, 7, 64})
        for (bool at_ : {false, true})
          for (bool bt : {false, true})
            for (int batch_side : {0, 1, 2}) {  // 0: none, 1: lhs [1, ...], 2: rhs [1, 1, ...]
              CAPTURE(m);
              CAPTURE(n);
              CAPTURE(k);
              CAPTURE(at_);
              CAPTURE(bt);
              CAPTURE(batch_side);
              // Operands as windows of wider tensors, stored transposed when a_trans / b_trans.
              at::Tensor a_store = at_ ? at::randn({k, m + 5}).narrow(1, 2, m) : at::randn({m, k + 5}).narrow(1, 3, k);
              at::Tensor b_store = bt ? at::randn({n, k + 4}).narrow(1, 1, k) : at::randn({k, n + 4}).narrow(1, 4, n);
              if (batch_side == 1) a_store = a_store.unsqueeze(0);
              if (batch_side == 2) b_store = b_store.unsqueeze(0).unsqueeze(0);
              Kw kw;
              if (at_) kw.emplace_back("a_trans", B(true));
              if (bt) kw.emplace_back("b_trans", B(true));
              at::Tensor l = at_ ? a_store.transpose(-1, -2) : a_store;
              at::Tensor r = bt ? b_store.transpose(-1, -2) : b_store;
              CHECK(same(call("matmul", {T(a_store), T(b_store)}, kw).tensor, aten(l, r)));
              ++cases;
            }
  CHECK(cases == 432);
  // matmul_acc adds with addmm's beta = 1 on matrices.
  at::Tensor x = at::randn({16, 64}), w = at::randn({64, 32}), acc0 = at::randn({16, 32});
  at::Tensor acc = acc0.clone();
  call("matmul_acc", {T(acc), T(x), T(w)});
  CHECK(same(acc, at::addmm(acc0, x, w)));
}
