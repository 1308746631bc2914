// Temporaries folded into the statement after them (sim/temp_inlining.h): which are, that the
// values are the statements' one by one bit for bit, and that a failure of the folded call
// names its own line.
#include "sim/dispatch.h"
#include "sim/expressions.h"
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

  // Not: t read again later, t the second operand, a call between, an op outside the
  // row nests (exp) on either side, a keyword, a parameter, an assignment twice, t dumped.
  CHECK(statements(t_then_y + write_y(call("add", var(kT), var(kB)), 4) + ", " +
                   write_y(call("add", var(kT), var(kT)), 5)) == 4);
  CHECK(statements(t_then_y + write_y(call("add", var(kB), var(kT)), 4)) == 3);
  CHECK(statements(t_then_y + assign(kU, R"({"e": "call", "op": "exp", "args": [)" + var(kX) + R"(], "kwargs": {}})", 4) +
                   ", " + write_y(call("add", var(kT), var(kU)), 5)) == 4);
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

namespace {

// t = pl.load(x, [row, 0], [rows, 16], **kwargs) at line 3.
std::string load_x(int row, int rows, const std::string& kwargs = "{}") {
  auto ints = [](int a, int b) {
    return R"({"e": "list", "items": [{"e": "const", "dtype": "int64", "v": )" + std::to_string(a) +
           R"(}, {"e": "const", "dtype": "int64", "v": )" + std::to_string(b) + "}]}";
  };
  return assign(kT, R"({"e": "call", "op": "load", "args": [)" + var(kX) + ", " + ints(row, 0) + ", " + ints(rows, 16) +
                        "], \"kwargs\": " + kwargs + "}",
                3);
}

std::string unary(const std::string& op, const std::string& a) {
  return R"({"e": "call", "op": ")" + op + R"(", "args": [)" + a + R"(], "kwargs": {}})";
}

}  // namespace

TEST_CASE("a loaded tile read only by the next statement's first operand is folded in, as a view") {
  // Into a row op, and into any other op (exp): the load is then that call's argument, a
  // transient load (a view of x, not a copy).
  for (const std::string& use : {call("add", var(kT), var(kB)), unary("exp", var(kT))}) {
    auto prog = parse_program(program(load_x(0, 8) + ", " + write_y(use, 4)), "mem");
    REQUIRE(prog->entry().body.size() == 2);
    const auto& write = dynamic_cast<const WriteStmt&>(*prog->entry().body[0]);
    const auto& outer = dynamic_cast<const CallExpr&>(write.value());
    const auto* load = dynamic_cast<const CallExpr*>(outer.args().at(0).get());
    REQUIRE(load != nullptr);
    CHECK(load->op().name == "load");
    CHECK(load->transient());
  }
  // Its offsets may ask for an extent (pl.tensor.dim reads no memory): [dim(x, 0) - 8, 0].
  {
    const std::string zero = R"({"e": "const", "dtype": "int64", "v": 0})";
    const std::string row = R"({"e": "binop", "op": "sub", "lhs": {"e": "call", "op": "dim", "args": [)" + var(kX) +
                            ", " + zero + R"(], "kwargs": {}}, "rhs": {"e": "const", "dtype": "int64", "v": 8}})";
    const std::string load = assign(kT, R"({"e": "call", "op": "load", "args": [)" + var(kX) +
                                            R"(, {"e": "list", "items": [)" + row + ", " + zero +
                                            R"(]}, {"e": "list", "items": [{"e": "const", "dtype": "int64", "v": 8}, )"
                                            R"({"e": "const", "dtype": "int64", "v": 16}]}], "kwargs": {}})",
                                    3);
    auto prog = parse_program(program(load + ", " + write_y(call("add", var(kT), var(kB)), 4)), "mem");
    REQUIRE(prog->entry().body.size() == 2);
    const auto& outer = dynamic_cast<const CallExpr&>(dynamic_cast<const WriteStmt&>(*prog->entry().body[0]).value());
    CHECK(dynamic_cast<const CallExpr&>(*outer.args().at(0)).transient());
  }
  // Not: the tile as the second operand, read twice, or with a call between.
  CHECK(statements(load_x(0, 8) + ", " + write_y(call("add", var(kB), var(kT)), 4)) == 3);
  CHECK(statements(load_x(0, 8) + ", " + write_y(call("add", var(kT), var(kT)), 4)) == 3);
  CHECK(statements(load_x(0, 8) + ", " + assign(kU, unary("exp", var(kB)), 4) + ", " +
                   write_y(call("add", var(kT), var(kU)), 5)) == 4);

  // The values: x + b and exp(x), bit for bit.
  const Inputs in;
  CHECK(same_bits(run(load_x(0, 8) + ", " + write_y(call("add", var(kT), var(kB)), 4), in), at::add(in.x, in.b)));
  CHECK(same_bits(run(load_x(0, 8) + ", " + write_y(unary("exp", var(kT)), 4), in), at::exp(in.x)));
}

TEST_CASE("a loaded tile folds with its keywords") {
  // The corpus's form: t = pl.load(x, ..., target_memory=pl.MemorySpace.Vec).
  const std::string vec = R"({"target_memory": {"e": "const", "dtype": "str", "v": "MemorySpace.Vec"}})";
  auto prog = parse_program(program(load_x(0, 8, vec) + ", " + write_y(call("add", var(kT), var(kB)), 4)), "mem");
  REQUIRE(prog->entry().body.size() == 2);
  const auto& outer = dynamic_cast<const CallExpr&>(dynamic_cast<const WriteStmt&>(*prog->entry().body[0]).value());
  const auto& load = dynamic_cast<const CallExpr&>(*outer.args().at(0));
  CHECK(load.op().name == "load");
  CHECK(load.has_kwargs());
  CHECK(load.transient());
  const Inputs in;
  CHECK(same_bits(run(load_x(0, 8, vec) + ", " + write_y(call("add", var(kT), var(kB)), 4), in), at::add(in.x, in.b)));
  // A bad keyword is still the load's error, on its own line.
  std::string what = "no error";
  try {
    run(load_x(0, 8, R"({"clamp": {"e": "const", "dtype": "str", "v": "yes"}})") + ", " +
            write_y(call("add", var(kT), var(kB)), 4),
        in);
  } catch (const std::exception& e) {
    what = e.what();
  }
  CAPTURE(what);
  CHECK(what.rfind("/k/fold.py:3: pl.load", 0) == 0);
}

TEST_CASE("a folded load's failure names its own line") {
  const Inputs in;
  std::string what = "no error";
  try {
    run(load_x(9, 8) + ", " + write_y(call("add", var(kT), var(kB)), 4), in);  // starts past x's 8 rows
  } catch (const std::exception& e) {
    what = e.what();
  }
  CAPTURE(what);
  CHECK(what.rfind("/k/fold.py:3: pl.load", 0) == 0);
}

namespace {

std::string binop(const std::string& op, const std::string& a, const std::string& b) {
  return R"({"e": "binop", "op": ")" + op + R"(", "lhs": )" + a + R"(, "rhs": )" + b + "}";
}
const std::string kSeven = R"({"e": "const", "dtype": "int64", "v": 7})";

}  // namespace

TEST_CASE("a temporary folds past scalar assignments of variables it does not read") {
  // t = pl.load(x, ...); u = 7 * 7; y[...] = pl.add(t, b): u's statement stays, t folds.
  const std::string u_scalar = assign(kU, binop("mul", kSeven, kSeven), 4) + ", ";
  CHECK(statements(load_x(0, 8) + ", " + u_scalar + write_y(call("add", var(kT), var(kB)), 5)) == 3);
  CHECK(statements(assign(kT, call("add", var(kX), var(kB)), 3) + ", " + u_scalar +
                   write_y(call("add", var(kT), var(kB)), 5)) == 3);
  // Not past an assignment of what the folded call reads (x), nor past a call.
  CHECK(statements(load_x(0, 8) + ", " + assign(kX, var(kB), 4) + ", " + write_y(call("add", var(kT), var(kB)), 5)) ==
        4);
  CHECK(statements(load_x(0, 8) + ", " + assign(kU, call("add", var(kB), var(kB)), 4) + ", " +
                   write_y(call("add", var(kT), var(kU)), 5)) == 4);

  const Inputs in;
  CHECK(same_bits(run(assign(kT, call("mul", var(kX), var(kB)), 3) + ", " + u_scalar +
                          write_y(call("add", var(kT), var(kB)), 5),
                      in),
                  at::add(at::mul(in.x, in.b), in.b)));
}

TEST_CASE("when a statement a temporary folded past fails, the temporary's failure is still reported first") {
  const Inputs in;
  auto message = [&](const std::string& body) {
    try {
      run(body, in);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // u = z + x fails ([4, 16] + [8, 16]); so does the folded t = pl.add(x, z) at line 3, first.
  const std::string bad_u = assign(kU, binop("add", var(kZ), var(kX)), 4) + ", ";
  const std::string bad_t = message(assign(kT, call("add", var(kX), var(kZ)), 3) + ", " + bad_u +
                                    write_y(call("add", var(kT), var(kB)), 5));
  CAPTURE(bad_t);
  CHECK(bad_t.rfind("/k/fold.py:3: pl.add", 0) == 0);
  // With a good t, u's own failure at line 4.
  const std::string own = message(assign(kT, call("add", var(kX), var(kB)), 3) + ", " + bad_u +
                                  write_y(call("add", var(kT), var(kB)), 5));
  CAPTURE(own);
  CHECK(own.rfind("/k/fold.py:4: ", 0) == 0);
}
