// Sequential row loops of one row-local write, run as one op (sim/row_batch.h): which loops
// qualify, that the values are the loop's bit for bit, and that everything the batch cannot
// prove leaves the loop to run, and fail, iteration by iteration as before.
#include "sim/dispatch.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"
#include "sim/statements.h"

#include "ieee_specials.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>


using namespace pypto_golden;
using namespace pypto_golden::sim;

namespace {

// Slots of every program here: x [rows, 8] In, b [rows, 1] In, y [rows, 8] (InOut unless
// told), k a scalar parameter, r the loop variable.
constexpr int kX = 0, kB = 1, kY = 2, kK = 3, kR = 4;

std::string var(int slot) { return R"({"e": "var", "slot": )" + std::to_string(slot) + "}"; }
std::string num(int64_t v) { return R"({"e": "const", "dtype": "int64", "v": )" + std::to_string(v) + "}"; }
std::string fp(double v) { return R"({"e": "const", "dtype": "fp32", "v": )" + std::to_string(v) + "}"; }
std::string binop(const char* op, const std::string& l, const std::string& r) {
  return R"({"e": "binop", "op": ")" + std::string(op) + R"(", "lhs": )" + l + R"(, "rhs": )" + r + "}";
}
// a * r + c
std::string lin(int64_t a, int64_t c) {
  std::string e = a == 1 ? var(kR) : binop("mul", num(a), var(kR));
  return c == 0 ? e : binop("add", e, num(c));
}
// [lo : hi, :]
std::string rows(const std::string& lo, const std::string& hi) {
  return R"([{"k": "slice", "lo": )" + lo + R"(, "hi": )" + hi + R"(}, {"k": "slice", "lo": null, "hi": null}])";
}
// The rows a*r + c : a*r + c + n.
std::string rows_at(int64_t a, int64_t c, int64_t n = 1) { return rows(lin(a, c), lin(a, c + n)); }
std::string window(int base, const std::string& index, const char* text = "w[...]") {
  return R"({"e": "subscript", "text": ")" + std::string(text) + R"(", "base": )" + var(base) + R"(, "index": )" +
         index + "}";
}
std::string call(const std::string& op, const std::string& a, const std::string& b) {
  return R"({"e": "call", "op": ")" + op + R"(", "args": [)" + a + ", " + b + R"(], "kwargs": {}})";
}
std::string write(const std::string& index, const std::string& value, int line = 3) {
  return R"({"s": "write", "line": )" + std::to_string(line) + R"(, "target": 2, "text": "y[r:r + 1, :]", "index": )" +
         index + R"(, "value": )" + value + "}";
}

struct Loop {
  int64_t start = 0, stop = 8, step = 1;
  const char* kind = "range";
  std::string body;        // the loop body's statements
  std::string after = "";  // statements after the loop (leading comma included)
  int64_t rows = 8;
  const char* y_direction = "InOut";
};

std::string program(const Loop& l) {
  const std::string n = std::to_string(l.rows);
  return R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/rows.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [)" + n + R"(, 8], "dtype": "fp32"},
                {"name": "b", "kind": "tensor", "direction": "In", "shape": [)" + n + R"(, 1], "dtype": "fp32"},
                {"name": "y", "kind": "tensor", "direction": ")" + l.y_direction + R"(", "shape": [)" + n + R"(, 8], "dtype": "fp32"},
                {"name": "k", "kind": "scalar", "direction": "In", "dtype": "int64", "runtime": true}],
     "slots": ["x", "b", "y", "k", "r"],
     "body": [
       {"s": "for", "line": 2, "kind": ")" + l.kind + R"(", "var": 4,
        "start": )" + num(l.start) + R"(, "stop": )" + num(l.stop) + R"(, "step": )" + num(l.step) + R"(,
        "body": [)" + l.body + R"(]})" + l.after + R"(,
       {"s": "return", "line": 9, "values": [{"e": "var", "slot": 2}]}]}]})";
}

const ForStmt& the_loop(const Program& prog) {
  const auto* loop = dynamic_cast<const ForStmt*>(prog.entry().body.front().get());
  REQUIRE(loop != nullptr);
  return *loop;
}

bool batches(const Loop& l) {
  auto prog = parse_program(program(l), "mem");
  return the_loop(*prog).row_batch() != nullptr;
}

// Runs the program on x, b and y (y is written in place); `k` is the scalar parameter.
void run(const Loop& l, const at::Tensor& x, const at::Tensor& b, at::Tensor& y, DeviceOptions options = {},
         int64_t k = 2) {
  auto prog = parse_program(program(l), "mem");
  std::vector<HostArg> args(4);
  args[0].tensor = x;
  args[1].tensor = b;
  args[2].tensor = y;
  args[3].is_tensor = false;
  args[3].scalar = c10::Scalar(k);
  Device dev(0, options);
  dispatch(*prog, args, dev);
}


}  // namespace

TEST_CASE("a sequential loop of one row-local write of windows that move with its variable is planned as a batch") {
  const std::string y_row = window(kY, rows_at(1, 0)), b_row = window(kB, rows_at(1, 0));
  // The sample's form: y[r : r + 1, :] = pl.row_expand_add(y[r : r + 1, :], bias[r : r + 1, :]).
  CHECK(batches({0, 8, 2, "range", write(rows_at(1, 0), call("row_expand_add", y_row, b_row))}));
  // Scaled and shifted rows, a scalar constant or parameter, blocks of rows, pl.unroll.
  CHECK(batches({0, 3, 1, "range", write(rows_at(2, 1), call("add", window(kX, rows_at(1, 4)), fp(2.0)))}));
  CHECK(batches({0, 8, 1, "range", write(rows_at(1, 0), call("mul", window(kX, rows_at(1, 0)), var(kK)))}));
  CHECK(batches({0, 2, 1, "range", write(rows_at(4, 0, 4), call("sub", window(kX, rows_at(4, 0, 4)), y_row))}));
  CHECK(batches({0, 8, 1, "unroll", write(rows_at(1, 0), call("div", y_row, fp(3.0)))}));

  // Not: an op that is not one IEEE operation per element (maximum: ATen's loops order
  // signed zeros differently), a parallel loop, a second statement, a window moving along
  // another axis, a bound not affine in r, an operand depending on r, or no window operand.
  CHECK_FALSE(batches({0, 8, 1, "range", write(rows_at(1, 0), call("row_expand_expdif", y_row, b_row))}));
  CHECK_FALSE(batches({0, 8, 1, "range", write(rows_at(1, 0), call("maximum", y_row, b_row))}));
  CHECK_FALSE(batches({0, 8, 1, "parallel", write(rows_at(1, 0), call("add", y_row, fp(1.0)))}));
  CHECK_FALSE(batches({0, 8, 1, "range",
                       write(rows_at(1, 0), call("add", y_row, fp(1.0))) + ", " +
                           write(rows_at(1, 0), call("add", y_row, fp(1.0)))}));
  const std::string by_column =
      R"([{"k": "slice", "lo": null, "hi": null}, {"k": "slice", "lo": )" + var(kR) + R"(, "hi": )" + lin(1, 1) + "}]";
  CHECK_FALSE(batches({0, 8, 1, "range", write(by_column, call("add", window(kY, by_column), fp(1.0)))}));
  const std::string squared = binop("mul", var(kR), var(kR));
  CHECK_FALSE(batches({0, 2, 1, "range",
                       write(rows(squared, binop("add", squared, num(1))), call("add", y_row, fp(1.0)))}));
  CHECK_FALSE(batches({0, 8, 1, "range", write(rows_at(1, 0), call("add", y_row, var(kR)))}));
  CHECK_FALSE(batches({0, 8, 1, "range", write(rows_at(1, 0), call("add", fp(1.0), fp(2.0)))}));
}

TEST_CASE("a batched row loop gives the loop's values bit for bit, for every row-local op and stride") {
  // The reference is the same body in a pl.parallel loop, which is never batched: each
  // iteration's op on its own row, as a sequential loop ran before.
  const at::Tensor x = awkward(24, 8, 1), b = awkward(24, 1, 2), y0 = awkward(24, 8, 3);
  const auto check = [&](Loop l) {
    l.rows = 24;
    REQUIRE(batches(l));
    at::Tensor y = y0.clone(), want = y0.clone();
    run(l, x, b, y);
    l.kind = "parallel";
    run(l, x, b, want, DeviceOptions{1, false, 0});
    CHECK(at::equal(y.view(at::kInt), want.view(at::kInt)));
    CHECK_FALSE(at::equal(y.view(at::kInt), y0.view(at::kInt)));
  };
  for (const char* op : {"add", "sub", "mul", "div"}) {
    for (int64_t step : {1, 2, 3}) {
      INFO(std::string(op), " step ", step);
      // y[r : r + 1] = op(y[r : r + 1], x[r + 1 : r + 2]) for r in range(1, 22, step): in place
      check({1, 22, step, "range", write(rows_at(1, 0), call(op, window(kY, rows_at(1, 0)), window(kX, rows_at(1, 1))))});
      // the row_expand form, one value of b per row
      check({0, 24, step, "range",
             write(rows_at(1, 0), call(std::string("row_expand_") + op, window(kX, rows_at(1, 0)), window(kB, rows_at(1, 0))))});
      // blocks of two rows and a scalar operand
      check({0, 12, step, "range", write(rows_at(2, 0, 2), call(op, window(kX, rows_at(2, 0, 2)), fp(-0.75)))});
    }
  }
}

TEST_CASE("a row loop that reads a row an earlier iteration wrote still runs row after row") {
  // y[r + 1] = y[r] + x[r + 1]: a running sum, which one op over all rows would not give.
  const at::Tensor x = at::randn({8, 8}), b = at::zeros({8, 1});
  at::Tensor y = at::zeros({8, 8});
  run({0, 7, 1, "range", write(rows_at(1, 1), call("add", window(kY, rows_at(1, 0)), window(kX, rows_at(1, 1))))}, x,
      b, y);
  at::Tensor want = at::zeros({8, 8});
  for (int64_t r = 0; r < 7; ++r) want[r + 1] = want[r] + x[r + 1];
  CHECK(at::equal(y, want));
}

TEST_CASE("a batched loop leaves its variable at the last value, and a write-only Out's unwritten rows poisoned") {
  // After `for r in range(0, 7, 2)`, r is 6: y[r : r + 1] = x[r : r + 1] + 100 writes row 6.
  const at::Tensor x = at::randn({8, 8}), b = at::zeros({8, 1});
  Loop l{0, 7, 2, "range", write(rows_at(1, 0), call("add", window(kX, rows_at(1, 0)), fp(1.0)))};
  l.after = ", " + write(rows_at(1, 0), call("add", window(kX, rows_at(1, 0)), fp(100.0)), 8);
  l.y_direction = "Out";
  at::Tensor y = at::zeros({8, 8});
  run(l, x, b, y);
  for (int64_t r : {0, 2, 4}) CHECK(at::equal(y[r], x[r] + 1));
  CHECK(at::equal(y[6], x[6] + 100));
  for (int64_t r : {1, 3, 5, 7}) CHECK(at::isnan(y[r]).all().item<bool>());
}

TEST_CASE("a row loop whose window leaves the tensor at a later iteration fails there, with the loop's message") {
  const at::Tensor x = at::randn({8, 8}), b = at::zeros({8, 1});
  at::Tensor y = at::zeros({8, 8});
  // r = 8 is a window just past the end (it writes nothing); r = 10 starts past it.
  CHECK_THROWS_WITH_AS(
      run({0, 12, 2, "range", write(rows_at(1, 0), call("add", window(kX, rows_at(1, 0), "x[r:r + 1, :]"), fp(1.0)))}, x,
          b, y),
      "/k/rows.py:3: y[r:r + 1, :] is outside its tensor: axis 0 asks for [10:11] but the extent is 8 (shape (8, 8)) "
      "(r=10)",
      SimError);
}
