// Nested FP32 add / sub / mul / div calls run a row at a time (sim/row_nest.h): the values of
// the calls one by one, bit for bit, and their messages where a call does not fit.
#include "sim/expressions.h"
#include "sim/row_nest.h"
#include "test_ops_util.h"

#include <memory>
#include <utility>

using namespace ops_test;
using namespace pypto_golden::sim;

namespace {

ExprPtr c(Value v) { return std::make_unique<ConstExpr>(std::move(v)); }
ExprPtr v(int slot) { return std::make_unique<VarExpr>(slot); }

ExprPtr fn(const char* name, ExprPtr a, ExprPtr b) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  return std::make_unique<CallExpr>(&op(name), std::move(args), std::vector<std::pair<std::string, ExprPtr>>{});
}

bool heads_nest(const ExprPtr& e) {
  const auto* call = dynamic_cast<const CallExpr*>(e.get());
  return call != nullptr && heads_row_nest(*call);
}

bool bitwise_equal(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes().equals(b.sizes()) && a.scalar_type() == b.scalar_type() &&
         at::equal(a.contiguous().view(at::kInt), b.contiguous().view(at::kInt));
}

struct Slots {
  enum { kC, kU, kG, kB, kR, kH, kCount };
  Function function;
  Frame frame;
  Slots() {
    at::manual_seed(11);
    function.slot_names = {"c", "u", "g", "b", "r", "h"};
    frame.function = &function;
    frame.slots = {T(at::randn({64, 48}) * 3), T(at::randn({64, 48})),      T(at::randn({1, 48})),
                   T(at::randn({1, 48})),      T(at::rand({64, 1}) + 0.5), T(at::randn({64, 48}).to(at::kBFloat16))};
  }
  const at::Tensor& t(int slot) const { return frame.slots[static_cast<size_t>(slot)].tensor; }
};

}  // namespace

TEST_CASE("nested FP32 calls give the values of the calls one by one, bit for bit, as a value and into a window") {
  Slots s;
  const at::Tensor &C = s.t(Slots::kC), &U = s.t(Slots::kU), &G = s.t(Slots::kG), &B = s.t(Slots::kB),
                   &R = s.t(Slots::kR);
  auto one = [](const char* name, at::Tensor a, Value b) { return call(name, {T(std::move(a)), std::move(b)}).tensor; };
  struct Case {
    const char* what;
    ExprPtr nest;
    at::Tensor expected;
  };
  std::vector<Case> cases;
  cases.push_back({"(c * c) * k", fn("mul", fn("mul", v(Slots::kC), v(Slots::kC)), c(F(1.0 / 48))),
                   one("mul", one("mul", C, T(C)), F(1.0 / 48))});
  cases.push_back({"col_expand_add(col_expand_mul(c, g), b)",
                   fn("col_expand_add", fn("col_expand_mul", v(Slots::kC), v(Slots::kG)), v(Slots::kB)),
                   one("col_expand_add", one("col_expand_mul", C, T(G)), T(B))});
  // A right operand that is itself a nest (evaluated into a scratch row), and an integer scalar.
  cases.push_back({"c * 0.5 + row_expand_div(u, r)",
                   fn("add", fn("mul", v(Slots::kC), c(F(0.5))), fn("row_expand_div", v(Slots::kU), v(Slots::kR))),
                   one("add", one("mul", C, F(0.5)), T(one("row_expand_div", U, T(R))))});
  cases.push_back({"(c + u) / 3 - col_expand_sub(u * u, g)",
                   fn("sub", fn("div", fn("add", v(Slots::kC), v(Slots::kU)), c(I(3))),
                      fn("col_expand_sub", fn("mul", v(Slots::kU), v(Slots::kU)), v(Slots::kG))),
                   one("sub", one("div", one("add", C, T(U)), I(3)), T(one("col_expand_sub", one("mul", U, T(U)), T(G))))});
  for (Case& k : cases) {
    CAPTURE(k.what);
    REQUIRE(heads_nest(k.nest));
    Value got = k.nest->eval(s.frame);
    CHECK(got.fully_valid());
    CHECK(bitwise_equal(got.tensor, k.expected));
    at::Tensor dst = at::full({64, 48}, 7.0f);
    CHECK(k.nest->eval_into(s.frame, dst).empty());
    CHECK(bitwise_equal(dst, k.expected));
    // Into a window of a wider tensor (rows apart in memory), leaving the rest untouched.
    at::Tensor wide = at::full({64, 60}, 7.0f);
    k.nest->eval_into(s.frame, wide.narrow(1, 6, 48));
    CHECK(bitwise_equal(wide.narrow(1, 6, 48), k.expected));
    CHECK(at::equal(wide.narrow(1, 0, 6), at::full({64, 6}, 7.0f)));
  }
}

TEST_CASE("a nest written into one of its own operands reads each element before it is overwritten") {
  Slots s;
  const at::Tensor C = s.t(Slots::kC).clone(), U = s.t(Slots::kU).clone();
  const at::Tensor expected = call("add", {T(call("mul", {T(C), F(2.0)}).tensor), T(U)}).tensor;
  // c = c * 2 + u: the leftmost operand is the window itself, read row by row before the row is written.
  ExprPtr in_place = fn("add", fn("mul", v(Slots::kC), c(F(2.0))), v(Slots::kU));
  in_place->eval_into(s.frame, s.t(Slots::kC));
  CHECK(bitwise_equal(s.t(Slots::kC), expected));
  // u = c * 2 + u with c restored: the window is a later operand, so the result is made apart first.
  s.frame.slots[Slots::kC] = T(C.clone());
  ExprPtr later = fn("add", fn("mul", v(Slots::kC), c(F(2.0))), v(Slots::kU));
  later->eval_into(s.frame, s.t(Slots::kU));
  CHECK(bitwise_equal(s.t(Slots::kU), expected));
  // c = (c * c) * 2: c is read twice, so the window is not written while it is read.
  s.frame.slots[Slots::kC] = T(C.clone());
  ExprPtr twice = fn("mul", fn("mul", v(Slots::kC), v(Slots::kC)), c(F(2.0)));
  twice->eval_into(s.frame, s.t(Slots::kC));
  CHECK(bitwise_equal(s.t(Slots::kC), call("mul", {T(call("mul", {T(C), T(C)}).tensor), F(2.0)}).tensor));
}

TEST_CASE("a call of a nest that does not fit the row loops runs on its own, with its values and messages") {
  Slots s;
  const at::Tensor& H = s.t(Slots::kH);
  // bf16: the ops' own arithmetic.
  ExprPtr bf16 = fn("mul", fn("mul", v(Slots::kH), v(Slots::kH)), c(F(0.5)));
  CHECK(bitwise_equal(bf16->eval(s.frame).tensor, call("mul", {T(call("mul", {T(H), T(H)}).tensor), F(0.5)}).tensor));
  // A valid region stays the op's.
  s.frame.slots[Slots::kC] = TV(s.t(Slots::kC), {32, 48});
  Value partial = fn("add", fn("mul", v(Slots::kC), c(F(2.0))), v(Slots::kU))->eval(s.frame);
  CHECK(partial.valid == std::vector<int64_t>{32, 48});
  // The inner call's error, before the outer call's operands are evaluated.
  s.frame.slots[Slots::kC] = T(at::ones({64, 48}));
  ExprPtr mixed = fn("add", fn("mul", v(Slots::kC), v(Slots::kH)), v(Slots::kU));
  CHECK_THROWS_WITH_AS(mixed->eval(s.frame),
                       "pl.mul: lhs is fp32 but rhs is bfloat16; PyPTO has no implicit promotion, convert one side "
                       "with pl.cast",
                       KernelError);
  // A scalar where a column vector belongs: the expand op's message.
  ExprPtr scalar_rhs = fn("col_expand_add", fn("mul", v(Slots::kC), c(F(2.0))), c(F(1.0)));
  CHECK_THROWS_WITH_AS(scalar_rhs->eval(s.frame), "pl.col_expand_add: rhs must be a tensor, got scalar fp32 1.0",
                       KernelError);
  // Operands that broadcast: the op's own (ATen) path, on the fused inner call's result.
  const at::Tensor twos = at::full({64, 48}, 2.0f);
  CHECK(bitwise_equal(fn("add", fn("mul", v(Slots::kC), c(F(2.0))), v(Slots::kG))->eval(s.frame).tensor,
                      call("add", {T(twos), T(s.t(Slots::kG))}).tensor));
  CHECK(bitwise_equal(fn("add", fn("mul", v(Slots::kC), c(F(2.0))), v(Slots::kR))->eval(s.frame).tensor,
                      call("add", {T(twos), T(s.t(Slots::kR))}).tensor));
  ExprPtr mismatch = fn("add", fn("mul", v(Slots::kC), c(F(2.0))), c(T(at::ones({3, 48}))));
  CHECK_THROWS_WITH_AS(mismatch->eval(s.frame), "pl.add: operand shapes (64, 48) and (3, 48) do not match (nor broadcast)",
                       KernelError);
}

TEST_CASE("no nest is formed around a call with keywords or an operand that writes memory") {
  std::vector<std::pair<std::string, ExprPtr>> kw;
  kw.emplace_back("high_precision", c(B(true)));
  std::vector<ExprPtr> args;
  args.push_back(v(0));
  args.push_back(v(1));
  ExprPtr with_kw = std::make_unique<CallExpr>(&op("div"), std::move(args), std::move(kw));
  CHECK_FALSE(heads_nest(fn("add", std::move(with_kw), v(2))));
  std::vector<ExprPtr> store_args;
  store_args.push_back(v(0));
  store_args.push_back(c(L({0, 0})));
  store_args.push_back(v(1));
  ExprPtr store = std::make_unique<CallExpr>(&op("store"), std::move(store_args),
                                             std::vector<std::pair<std::string, ExprPtr>>{});
  CHECK_FALSE(heads_nest(fn("add", fn("mul", v(0), v(1)), std::move(store))));
  // A call of another op that makes new memory from what it reads may be an operand.
  CHECK(heads_nest(fn("add", fn("mul", v(0), v(1)), fn("maximum", v(2), v(3)))));
  CHECK(heads_nest(fn("add", fn("mul", v(0), v(1)), v(2))));
  CHECK_FALSE(heads_nest(fn("add", v(0), v(1))));  // nothing nested: the op alone
}
