#include "sim/dispatch.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"

#include "host_args.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

using namespace pypto_golden;
using namespace pypto_golden::sim;

namespace {

// y[r:r+2, :] = pl.add(x[r:r+2, :], a) over a [rows, 3] fp32 tensor, r in
// pl.parallel(0, stop, row_step).
std::string tiled_add_program(int row_step, int rows = 4, int stop = 4) {
  const std::string step = std::to_string(row_step);
  return R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/add.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [)" + std::to_string(rows) + R"(, 3], "dtype": "fp32"},
                {"name": "a", "kind": "scalar", "direction": "In", "dtype": "fp32", "runtime": true},
                {"name": "y", "kind": "tensor", "direction": "Out", "shape": [)" + std::to_string(rows) + R"(, 3], "dtype": "fp32"}],
     "slots": ["x", "a", "y", "r", "t"],
     "body": [
       {"s": "for", "line": 5, "kind": "parallel", "var": 3,
        "start": {"e": "const", "dtype": "int64", "v": 0},
        "stop": {"e": "const", "dtype": "int64", "v": )" + std::to_string(stop) + R"(},
        "step": {"e": "const", "dtype": "int64", "v": )" + step + R"(},
        "body": [{"s": "at", "line": 6, "name": "add", "body": [
          {"s": "assign", "line": 7, "slot": 4, "value": {"e": "subscript", "text": "x[r:r + 2, :]",
            "base": {"e": "var", "slot": 0},
            "index": [{"k": "slice", "lo": {"e": "var", "slot": 3},
                       "hi": {"e": "binop", "op": "add", "lhs": {"e": "var", "slot": 3}, "rhs": {"e": "const", "dtype": "int64", "v": 2}}}]}},
          {"s": "write", "line": 8, "target": 2, "text": "y[r:r + 2, :]",
           "index": [{"k": "slice", "lo": {"e": "var", "slot": 3},
                      "hi": {"e": "binop", "op": "add", "lhs": {"e": "var", "slot": 3}, "rhs": {"e": "const", "dtype": "int64", "v": 2}}}],
           "value": {"e": "call", "op": "add", "args": [{"e": "var", "slot": 4}, {"e": "var", "slot": 1}], "kwargs": {}}}]}]},
       {"s": "return", "line": 9, "values": [{"e": "var", "slot": 2}]}]}]})";
}


}  // namespace

TEST_CASE("a tiled scalar add runs and writes only through device memory") {
  auto prog = parse_program(tiled_add_program(2), "mem");
  at::Tensor x = at::arange(12, at::kFloat).reshape({4, 3});
  at::Tensor y = at::zeros({4, 3});
  for (int threads : {1, 2, 4}) {
    Device dev(0, DeviceOptions{threads, threads == 4, 7});
    dispatch(*prog, args_for(x, 1.5, y), dev);
    CHECK(at::equal(y, x + 1.5));
  }
  CHECK(at::equal(x, at::arange(12, at::kFloat).reshape({4, 3})));  // In is never written back
}

TEST_CASE("a handed-over output comes back in the report instead of being copied into the host tensor") {
  at::Tensor x = at::arange(12, at::kFloat).reshape({4, 3});
  Device dev(0, DeviceOptions{2, false, 7});
  SUBCASE("a pure Out needs only its shape and dtype") {
    auto prog = parse_program(tiled_add_program(2), "handover-out");
    std::vector<HostArg> args = args_for(x, 1.5, at::empty({4, 3}, at::TensorOptions().device(at::kMeta)));
    args[2].hand_over = true;
    DispatchReport report = dispatch(*prog, args, dev);
    REQUIRE(report.outputs.size() == 3);
    CHECK_FALSE(report.outputs[0].defined());  // an In is never handed over
    CHECK(at::equal(report.outputs[2], x + 1.5));
  }
  SUBCASE("an InOut's host tensor becomes the device buffer") {
    std::string text = tiled_add_program(2);
    text.replace(text.find(R"("direction": "Out")"), 18, R"("direction": "InOut")");
    auto prog = parse_program(text, "handover-inout");
    at::Tensor y = at::zeros({4, 3});
    const void* where = y.const_data_ptr();
    std::vector<HostArg> args = args_for(x, 1.5, y);
    args[2].hand_over = true;
    DispatchReport report = dispatch(*prog, args, dev);
    CHECK(report.outputs[2].const_data_ptr() == where);
    CHECK(at::equal(report.outputs[2], x + 1.5));
  }
  CHECK(at::equal(x, at::arange(12, at::kFloat).reshape({4, 3})));
}

TEST_CASE("an Out the caller receives anyway is worked in directly, unless another argument shares its bytes") {
  auto prog = parse_program(tiled_add_program(2), "in-place");
  auto failing = parse_program(tiled_add_program(5, 4, 6), "in-place-failing");  // r = 0 writes, r = 5 fails
  Device dev(0, DeviceOptions{2, false, 7});
  Device one(1, DeviceOptions{1, false, 0});
  at::Tensor x = at::arange(12, at::kFloat).reshape({4, 3});
  at::Tensor y = at::zeros({4, 3});
  std::vector<HostArg> args = args_for(x, 1.5, y);
  args[2].in_place = true;
  dispatch(*prog, args, dev);
  CHECK(at::equal(y, x + 1.5));
  // The kernel writes the caller's tensor as it runs: a failed dispatch leaves its writes
  // there, and the poison where it wrote nothing.
  y.zero_();
  args = args_for(at::ones({4, 3}), 1.0, y);
  args[2].in_place = true;
  CHECK_THROWS_AS(dispatch(*failing, args, one), SimError);
  CHECK(at::equal(y.slice(0, 0, 2), at::full({2, 3}, 2.0)));
  CHECK(at::isnan(y.slice(0, 2, 4)).all().item<bool>());
  // Copied as usual, the caller's tensor is untouched by a failed dispatch ...
  y.zero_();
  args[2].in_place = false;
  CHECK_THROWS_AS(dispatch(*failing, args, one), SimError);
  CHECK(at::equal(y, at::zeros({4, 3})));
  // ... and so it is when the Out is also the In: a device buffer keeps the two apart.
  at::Tensor z = at::ones({4, 3});
  args = args_for(z, 1.0, z);
  args[2].in_place = true;
  CHECK_THROWS_AS(dispatch(*failing, args, one), SimError);
  CHECK(at::equal(z, at::ones({4, 3})));
}

TEST_CASE("an Out element the kernel never writes stays poisoned, and the mask against the golden finds it") {
  auto prog = parse_program(tiled_add_program(4), "mem");  // r = 0 only: rows 2..3 unwritten
  at::Tensor y = at::zeros({4, 3});
  Device dev(0, DeviceOptions{});
  dispatch(*prog, args_for(at::ones({4, 3}), 1.0, y), dev);
  CHECK(at::equal(y.slice(0, 0, 2), at::full({2, 3}, 2.0)));
  CHECK(at::isnan(y.slice(0, 2, 4)).all().item<bool>());
  const at::Tensor unwritten = at::cat({at::zeros({2, 3}), at::ones({2, 3})}).to(at::kBool);
  CHECK(at::equal(Device::poison_mask_against(y, at::full({4, 3}, 2.0)), unwritten));
  // An integer's poison (0xA5 bytes) is also a value: unwritten only where the golden differs.
  at::Tensor ints = at::full({2, 2}, -91, at::kChar);  // int8 -91 is 0xA5
  at::Tensor golden = at::tensor({-91, 5, 5, -91}, at::kChar).reshape({2, 2});
  CHECK(at::equal(Device::poison_mask_against(ints, golden),
                  at::tensor({0, 1, 1, 0}, at::kInt).to(at::kBool).reshape({2, 2})));
  // PYPTO_SIM_OUT_INIT=zero: pure Out memory starts zeroed.
  DeviceOptions zero;
  zero.zero_outputs = true;
  Device zeroed(1, zero);
  CHECK_FALSE(zeroed.poisons_outputs());
  y.fill_(7.0f);
  dispatch(*prog, args_for(at::ones({4, 3}), 1.0, y), zeroed);
  CHECK(at::equal(y.slice(0, 2, 4), at::zeros({2, 3})));
}

TEST_CASE("a window past the end of its tensor is clamped: its reads and writes stay inside") {
  // r = 0, 3: x[3:5] has one row inside the tensor; the sum's valid region is that row, and
  // y[3:5] = ... writes it. Row 2 is never written.
  auto prog = parse_program(tiled_add_program(3), "mem");
  at::Tensor x = at::arange(12, at::kFloat).reshape({4, 3});
  at::Tensor y = at::zeros({4, 3});
  Device dev(0, DeviceOptions{});
  dispatch(*prog, args_for(x, 1.0, y), dev);
  CHECK(at::equal(y.slice(0, 0, 2), x.slice(0, 0, 2) + 1));
  CHECK(at::equal(y.slice(0, 3, 4), x.slice(0, 3, 4) + 1));
  CHECK(at::isnan(y.slice(0, 2, 3)).all().item<bool>());
}

TEST_CASE("a window that starts past the end names file, line, window and loop index") {
  auto prog = parse_program(tiled_add_program(5, 4, 6), "mem");  // r = 5 starts past the 4 rows
  Device dev(0, DeviceOptions{2, false, 0});
  CHECK_THROWS_WITH_AS(dispatch(*prog, args_for(at::ones({4, 3}), 1.0, at::zeros({4, 3})), dev),
                       "/k/add.py:7: x[r:r + 2, :] is outside its tensor: axis 0 asks for [5:7] but the extent is 4 "
                       "(shape (4, 3)) (r=5)",
                       SimError);
}

TEST_CASE("a tile loaded from an In argument and then written is the kernel's own copy") {
  // t = pl.load(x, [0, 0], [4, 3]); t[0:1, :] = t[0:1, :] + 100; y[:] = pl.load(x, [0, 0], [4, 3]).
  // The write makes x a parameter the program may write, so its loads copy: x keeps its values.
  const std::string load_x =
      R"({"e": "call", "op": "load", "args": [{"e": "var", "slot": 0}, {"e": "list", "items": [{"e": "const", "dtype": "int64", "v": 0}, {"e": "const", "dtype": "int64", "v": 0}]}, {"e": "list", "items": [{"e": "const", "dtype": "int64", "v": 4}, {"e": "const", "dtype": "int64", "v": 3}]}], "kwargs": {}})";
  const std::string row0 = R"([{"k": "slice", "lo": {"e": "const", "dtype": "int64", "v": 0}, "hi": {"e": "const", "dtype": "int64", "v": 1}}])";
  const std::string text = R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/load.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [4, 3], "dtype": "fp32"},
                {"name": "y", "kind": "tensor", "direction": "Out", "shape": [4, 3], "dtype": "fp32"}],
     "slots": ["x", "y", "t"],
     "body": [
       {"s": "assign", "line": 2, "slot": 2, "value": )" + load_x + R"(},
       {"s": "write", "line": 3, "target": 2, "text": "t[0:1]", "index": )" + row0 + R"(,
        "value": {"e": "call", "op": "add", "args": [{"e": "subscript", "text": "t[0:1]", "base": {"e": "var", "slot": 2}, "index": )" + row0 + R"(}, {"e": "const", "dtype": "fp32", "v": 100.0}], "kwargs": {}}},
       {"s": "write", "line": 4, "target": 1, "text": "y[:]", "index": [{"k": "slice", "lo": null, "hi": null}], "value": )" + load_x + R"(},
       {"s": "return", "line": 5, "values": [{"e": "var", "slot": 1}]}]}]})";
  auto prog = parse_program(text, "mem");
  REQUIRE(prog->entry().params[0].may_be_written);
  at::Tensor x = at::arange(12, at::kFloat).reshape({4, 3});
  at::Tensor y = at::zeros({4, 3});
  std::vector<HostArg> args(2);
  args[0].tensor = x;
  args[1].tensor = y;
  Device dev(0, DeviceOptions{});
  dispatch(*prog, args, dev);
  CHECK(at::equal(y, x));
}

TEST_CASE("arguments that do not fit the parameters are refused") {
  auto prog = parse_program(tiled_add_program(2), "mem");
  Device dev(0, DeviceOptions{});
  CHECK_THROWS_WITH_AS(dispatch(*prog, args_for(at::ones({4, 2}), 1.0, at::zeros({4, 3})), dev),
                       "argument 'x' must be a fp32 tensor of shape (4, 3), got fp32 (4, 2)", ArgumentError);
}

TEST_CASE("programs from another version or with unknown ops are refused") {
  CHECK_THROWS_WITH_AS(parse_program(R"({"format": "pypto-golden-sim", "version": 7})", "p.json"),
                       "p.json: program version 7 is not supported (this simulator runs version 1); rebuild the "
                       "kernel with this pypto-golden",
                       ProgramError);
  std::string text = tiled_add_program(2);
  text.replace(text.find("\"op\": \"add\", \"args\""), 11, "\"op\": \"zzz\"");
  CHECK_THROWS_WITH_AS(parse_program(text, "p.json"),
                       "p.json: function 'k': the op 'zzz' is not provided by this simulator; rebuild the kernel "
                       "with this pypto-golden",
                       ProgramError);
  CHECK_THROWS_AS(parse_program("{", "p.json"), ProgramError);
}
