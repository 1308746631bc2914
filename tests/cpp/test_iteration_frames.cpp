// The frames of a parallel loop's iterations: each copies the variables its body may read
// (the loader's analysis), not every variable of the function, and still gives the body
// what it read before, names the loops in force when it fails, and hands task ids back.
#include "sim/dispatch.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"

#include "host_args.h"
#include "sim/statements.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace pypto_golden;
using namespace pypto_golden::sim;

namespace {

std::string int_const(int v) { return R"({"e": "const", "dtype": "int64", "v": )" + std::to_string(v) + "}"; }
std::string var(int slot) { return R"({"e": "var", "slot": )" + std::to_string(slot) + "}"; }
std::string rows_of(int slot) {
  return R"([{"k": "slice", "lo": )" + var(slot) + R"(, "hi": {"e": "binop", "op": "add", "lhs": )" + var(slot) +
         R"(, "rhs": )" + int_const(2) + "}}]";
}

// Slots: x [4, 3] In, a (fp32 scalar), y [4, 3] Out, then i, r, t, u, spare.
//     u = pl.mul(x, 2.0); spare = pl.add(x, 1.0)        # spare: never read in the loop
//     for i in range(1, 3):
//         for r in pl.parallel(0, stop, 2):
//             with pl.at(name="rows"):
//                 t = u[r:r + 2, :]
//                 y[r:r + 2, :] = pl.add(t, a)
std::string program(int stop) {
  const std::string parallel = R"({"s": "for", "line": 4, "kind": "parallel", "var": 4, "start": )" + int_const(0) +
                               R"(, "stop": )" + int_const(stop) + R"(, "step": )" + int_const(2) +
                               R"(, "body": [{"s": "at", "line": 5, "name": "rows", "body": [
        {"s": "assign", "line": 6, "slot": 5, "value": {"e": "subscript", "text": "u[r:r + 2, :]", "base": )" +
                               var(6) + R"(, "index": )" + rows_of(4) + R"(}},
        {"s": "write", "line": 7, "target": 2, "text": "y[r:r + 2, :]", "index": )" +
                               rows_of(4) + R"(, "value": {"e": "call", "op": "add", "args": [)" + var(5) + ", " +
                               var(1) + R"(], "kwargs": {}}}]}]})";
  return R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/frames.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [4, 3], "dtype": "fp32"},
                {"name": "a", "kind": "scalar", "direction": "In", "dtype": "fp32", "runtime": true},
                {"name": "y", "kind": "tensor", "direction": "Out", "shape": [4, 3], "dtype": "fp32"}],
     "slots": ["x", "a", "y", "i", "r", "t", "u", "spare"],
     "body": [
       {"s": "assign", "line": 2, "slot": 6, "value": {"e": "call", "op": "mul", "args": [)" +
         var(0) + R"(, {"e": "const", "dtype": "fp32", "v": 2.0}], "kwargs": {}}},
       {"s": "assign", "line": 2, "slot": 7, "value": {"e": "call", "op": "add", "args": [)" +
         var(0) + R"(, {"e": "const", "dtype": "fp32", "v": 1.0}], "kwargs": {}}},
       {"s": "for", "line": 3, "kind": "range", "var": 3, "start": )" +
         int_const(1) + R"(, "stop": )" + int_const(3) + R"(, "step": )" + int_const(1) + R"(, "body": [)" + parallel +
         R"(]},
       {"s": "return", "line": 9, "values": [{"e": "var", "slot": 2}]}]}]})";
}


const ForStmt& parallel_loop(const Program& prog) {
  const auto& outer = dynamic_cast<const ForStmt&>(*prog.entry().body.at(2));
  return dynamic_cast<const ForStmt&>(*outer.body().at(0));
}

}  // namespace

TEST_CASE("a parallel loop's iterations copy the parameters and the variables the body reads") {
  auto prog = parse_program(program(4), "mem");
  const std::vector<int>* live = parallel_loop(*prog).live_in();
  REQUIRE(live != nullptr);
  // x, a, y (parameters), r and t (read in the body), u (read, made before the loop); not
  // i (the outer loop's variable is copied as a loop in force) nor spare.
  CHECK(*live == std::vector<int>{0, 1, 2, 4, 5, 6});
  // A sequential loop shares its frame: nothing to copy.
  CHECK(dynamic_cast<const ForStmt&>(*prog->entry().body.at(2)).live_in() == nullptr);
}

TEST_CASE("an iteration reads the variables made before the loop, on any number of threads") {
  auto prog = parse_program(program(4), "mem");
  const at::Tensor x = at::arange(12, at::kFloat).reshape({4, 3});
  for (int threads : {1, 2, 4}) {
    at::Tensor y = at::zeros({4, 3});
    Device dev(0, DeviceOptions{threads, threads == 4, 7});
    dispatch(*prog, args_for(x, 0.5, y), dev);
    CHECK(at::equal(y, x * 2 + 0.5));
  }
}

TEST_CASE("a failing iteration names every loop in force, the ones its body never reads too") {
  // r = 6 starts past u's 4 rows; the body reads r but not i, which is 1 on the first round.
  auto prog = parse_program(program(7), "mem");
  Device dev(0, DeviceOptions{1, false, 0});
  CHECK_THROWS_WITH_AS(dispatch(*prog, args_for(at::ones({4, 3}), 1.0, at::zeros({4, 3})), dev),
                       "/k/frames.py:6: u[r:r + 2, :] is outside its tensor: axis 0 asks for [6:8] but the extent is "
                       "4 (shape (4, 3)) (i=1, r=6)",
                       SimError);
}
