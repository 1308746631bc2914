// Temporaries folded into the statement after them (sim/temp_inlining.h): which are, that the
// values are the statements' one by one bit for bit, and that a failure of the folded call
// names its own line.
#include "sim/dispatch.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"
#include "sim/statements.h"

#include "ieee_specials.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace pypto_golden;
using namespace pypto_golden::sim;

namespace {

// Slots: x, b [8, 16] In, g [1, 16] In, z [4, 16] In, y [8, 16] Out, then the temporaries t, u.
constexpr int kX = 0, kB = 1, kG = 2, kZ = 3, kY = 4, kT = 5, kU = 6;

std::string var(int slot) { return R"({"e": "var", "slot": )" + std::to_string(slot) + "}"; }
std::string call(const std::string& op, const std::string& a, const std::string& b) {
  return R"({"e": "call", "op": ")" + op + R"(", "args": [)" + a + ", " + b + R"(], "kwargs": {}})";
}
std::string assign(int slot, const std::string& value, int line) {
  return R"({"s": "assign", "line": )" + std::to_string(line) + R"(, "slot": )" + std::to_string(slot) +
         R"(, "value": )" + value + "}";
}
std::string write_y(const std::string& value, int line) {
  return R"({"s": "write", "line": )" + std::to_string(line) +
         R"(, "target": 4, "text": "y[:, :]", "index": [{"k": "slice", "lo": null, "hi": null}, )"
         R"({"k": "slice", "lo": null, "hi": null}], "value": )" +
         value + "}";
}

std::string program(const std::string& body) {
  return R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/fold.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [8, 16], "dtype": "fp32"},
                {"name": "b", "kind": "tensor", "direction": "In", "shape": [8, 16], "dtype": "fp32"},
                {"name": "g", "kind": "tensor", "direction": "In", "shape": [1, 16], "dtype": "fp32"},
                {"name": "z", "kind": "tensor", "direction": "In", "shape": [4, 16], "dtype": "fp32"},
                {"name": "y", "kind": "tensor", "direction": "Out", "shape": [8, 16], "dtype": "fp32"}],
     "slots": ["x", "b", "g", "z", "y", "t", "u"],
     "body": [)" + body + R"(, {"s": "return", "line": 9, "values": [{"e": "var", "slot": 4}]}]}]})";
}

// How many statements the function body was built as (the return included).
size_t statements(const std::string& body) { return parse_program(program(body), "mem")->entry().body.size(); }


struct Inputs {
  at::Tensor x = awkward(8, 16, 1), b = awkward(8, 16, 2), g = awkward(1, 16, 3), z = awkward(4, 16, 4);
};

at::Tensor run(const std::string& body, const Inputs& in, DeviceOptions options = {}) {
  auto prog = parse_program(program(body), "mem");
  at::Tensor y = at::zeros({8, 16});
  std::vector<HostArg> args(5);
  args[0].tensor = in.x;
  args[1].tensor = in.b;
  args[2].tensor = in.g;
  args[3].tensor = in.z;
  args[4].tensor = y;
  Device dev(0, options);
  dispatch(*prog, args, dev);
  return y;
}

bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  return at::equal(a.contiguous().view(at::kInt), b.contiguous().view(at::kInt));
}

}  // namespace

TEST_CASE("a row-op temporary read only by the next statement's first operand is folded into it") {
  const std::string t_then_y = assign(kT, call("add", var(kX), var(kB)), 3) + ", ";
  CHECK(statements(t_then_y + write_y(call("add", var(kT), var(kB)), 4)) == 2);
  CHECK(statements(t_then_y + assign(kU, call("mul", var(kT), var(kB)), 4) + ", " + write_y(var(kU), 5)) == 3);
  // The first operand of the first operand: what the statement evaluates first.
  CHECK(statements(t_then_y + write_y(call("col_expand_add", call("sub", var(kT), var(kB)), var(kG)), 4)) == 2);
  // Chains fold one link: t into u's statement; u, read by a write after it, then folds too.
  CHECK(statements(t_then_y + assign(kU, call("mul", var(kT), var(kB)), 4) + ", " +
                   write_y(call("add", var(kU), var(kX)), 5)) == 3);

  // Not: t read again later, t the second operand, a statement between, an op outside the
  // row nests (exp) on either side, a keyword, a parameter, an assignment twice, t dumped.
  CHECK(statements(t_then_y + write_y(call("add", var(kT), var(kB)), 4) + ", " +
                   write_y(call("add", var(kT), var(kT)), 5)) == 4);
  CHECK(statements(t_then_y + write_y(call("add", var(kB), var(kT)), 4)) == 3);
  CHECK(statements(t_then_y + assign(kU, var(kX), 4) + ", " + write_y(call("add", var(kT), var(kU)), 5)) == 4);
  CHECK(statements(assign(kT, R"({"e": "call", "op": "exp", "args": [)" + var(kX) + R"(], "kwargs": {}})", 3) +
                   ", " + write_y(call("add", var(kT), var(kB)), 4)) == 3);
  CHECK(statements(t_then_y + R"({"s": "write", "line": 4, "target": 4, "text": "y[:, :]", "index": [)"
                              R"({"k": "slice", "lo": null, "hi": null}, {"k": "slice", "lo": null, "hi": null}],)"
                              R"( "value": {"e": "call", "op": "exp", "args": [)" +
                   var(kT) + R"(], "kwargs": {}}})") == 3);
  CHECK(statements(assign(kX, call("add", var(kB), var(kB)), 3) + ", " + write_y(call("add", var(kX), var(kB)), 4)) ==
        3);
  CHECK(statements(t_then_y + assign(kT, var(kX), 4) + ", " + write_y(call("add", var(kT), var(kB)), 5)) == 4);
  // t written into as well (a write names it as its target).
  CHECK(statements(t_then_y + write_y(call("add", var(kT), var(kB)), 4) + ", " +
                   R"({"s": "write", "line": 5, "target": 5, "text": "t[:, :]", "index": [)"
                   R"({"k": "slice", "lo": null, "hi": null}, {"k": "slice", "lo": null, "hi": null}],)"
                   R"( "value": )" + var(kX) + "}") == 4);
}

TEST_CASE("a folded temporary gives the statements' values bit for bit") {
  const Inputs in;
  // (x + b) + b; (x - b) * b into u, then u + x; col_expand_add((x * b) - b, g).
  const at::Tensor t1 = at::add(in.x, in.b), t2 = at::sub(in.x, in.b), t3 = at::mul(in.x, in.b);
  CHECK(same_bits(run(assign(kT, call("add", var(kX), var(kB)), 3) + ", " + write_y(call("add", var(kT), var(kB)), 4), in),
                  at::add(t1, in.b)));
  CHECK(same_bits(run(assign(kT, call("sub", var(kX), var(kB)), 3) + ", " + assign(kU, call("mul", var(kT), var(kB)), 4) +
                          ", " + write_y(call("add", var(kU), var(kX)), 5),
                      in),
                  at::add(at::mul(t2, in.b), in.x)));
  CHECK(same_bits(run(assign(kT, call("mul", var(kX), var(kB)), 3) + ", " +
                          write_y(call("col_expand_add", call("sub", var(kT), var(kB)), var(kG)), 4),
                      in),
                  at::add(at::sub(t3, in.b), in.g)));
  // The temporary as a row_expand operand's tile: row_expand_div(x * b, x[:, :1]).
  const std::string x_col = R"({"e": "subscript", "text": "x[:, 0:1]", "base": )" + var(kX) +
                            R"(, "index": [{"k": "slice", "lo": null, "hi": null}, {"k": "slice", "lo": )"
                            R"({"e": "const", "dtype": "int64", "v": 0}, "hi": {"e": "const", "dtype": "int64", "v": 1}}]})";
  CHECK(same_bits(run(assign(kT, call("mul", var(kX), var(kB)), 3) + ", " +
                          write_y(call("row_expand_div", var(kT), x_col), 4),
                      in),
                  at::div(t3, in.x.narrow(1, 0, 1))));
}

TEST_CASE("a folded call's failure names its own line, and the folded statement's its") {
  const Inputs in;
  DeviceOptions options;
  auto message = [&](const std::string& body) {
    try {
      run(body, in, options);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // x [8, 16] + z [4, 16] fails in the folded call (line 3), evaluated first as before.
  const std::string bad_t = message(assign(kT, call("add", var(kX), var(kZ)), 3) + ", " +
                                    write_y(call("add", var(kT), var(kB)), 4));
  CHECK(bad_t.rfind("/k/fold.py:3: pl.add", 0) == 0);
  // The statement's own operand fails at its line (4).
  const std::string bad_use = message(assign(kT, call("add", var(kX), var(kB)), 3) + ", " +
                                      write_y(call("add", var(kT), var(kZ)), 4));
  CHECK(bad_use.rfind("/k/fold.py:4: pl.add", 0) == 0);
  // Apart, the messages are the same.
  CHECK(message(assign(kT, call("add", var(kX), var(kZ)), 3) + ", " + assign(kU, var(kX), 4) + ", " +
                write_y(call("add", var(kT), var(kU)), 5)) == bad_t);
  // A write whose target fails (one element: y[0, 0] = ...) still reports the folded call's
  // failure first, as the statement before did; with a good folded call, its own.
  const std::string zero = R"({"e": "const", "dtype": "int64", "v": 0})";
  auto write_element = [&](const std::string& value) {
    return R"({"s": "write", "line": 4, "target": 4, "text": "y[0, 0]", "index": [{"k": "index", "v": )" + zero +
           R"(}, {"k": "index", "v": )" + zero + R"(}], "value": )" + value + "}";
  };
  CHECK(message(assign(kT, call("add", var(kX), var(kZ)), 3) + ", " + write_element(call("add", var(kT), var(kB)))) ==
        bad_t);
  CHECK(message(assign(kT, call("add", var(kX), var(kB)), 3) + ", " + write_element(call("add", var(kT), var(kB)))) ==
        "/k/fold.py:4: y[0, 0] = ... writes one element; use pl.write for element writes");
  // With PYPTO_SIM_NAN_CHECK the calls run one by one (no row nest): the same line.
  options.nan_check = true;
  CHECK(message(assign(kT, call("add", var(kX), var(kZ)), 3) + ", " + write_y(call("add", var(kT), var(kB)), 4)) ==
        bad_t);
}
