// The elements of a pure Out a dispatch counts as written (sim/write_log.h): only those
// escape the poison the run gives the rest afterwards.
#include "sim/dispatch.h"
#include "sim/program_loader.h"
#include "sim/write_log.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <thread>
#include <utility>
#include <vector>

using pypto_golden::sim::WriteLog;
using Runs = std::vector<std::pair<int64_t, int64_t>>;

TEST_CASE("the write log lists exactly the elements no noted window covered") {
  at::Tensor y = at::empty({6, 100});
  WriteLog log;
  log.track(y);
  REQUIRE(log.size() == 1);
  CHECK(log.unwritten(0) == Runs{{0, 600}});
  log.note(y.narrow(0, 1, 2), {});                       // rows 1..2, whole: one run of 200
  CHECK(log.unwritten(0) == Runs{{0, 100}, {300, 600}});
  log.note(y.narrow(0, 3, 2).narrow(1, 10, 5), {1, 3});  // the corner: row 3, columns 10..12
  CHECK(log.unwritten(0) == Runs{{0, 100}, {300, 310}, {313, 600}});
  log.note(y.select(1, 99).narrow(0, 4, 2), {});         // a column: elements 499 and 599
  CHECK(log.unwritten(0) == Runs{{0, 100}, {300, 310}, {313, 499}, {500, 599}});
  log.note(y.narrow(0, 0, 1), {});                      // a row again, overlapping nothing
  log.note(y.narrow(0, 0, 1).narrow(1, 60, 30), {});    // and within it: no change
  CHECK(log.unwritten(0) == Runs{{300, 310}, {313, 499}, {500, 599}});
  log.note(y.narrow(0, 3, 3).narrow(1, 0, 0), {});      // an empty window writes nothing
  CHECK(log.unwritten(0).size() == 3);
  // Memory the log does not track is not noted, however its views look.
  at::Tensor other = at::empty({6, 100});
  log.note(other, {});
  CHECK(log.unwritten(0).size() == 3);
  log.note(y, {});
  CHECK(log.unwritten(0).empty());
}

TEST_CASE("the write log tracks a tensor at an offset into its storage, and several tensors apart") {
  at::Tensor storage = at::empty({200});
  at::Tensor a = storage.narrow(0, 50, 70), b = at::empty({3, 3}, at::kInt);
  WriteLog log;
  log.track(a);
  log.track(b);
  log.note(storage.narrow(0, 60, 4), {});  // a's elements 10..13
  log.note(b.narrow(1, 1, 2), {});           // b's columns 1..2
  CHECK(log.unwritten(0) == Runs{{0, 10}, {14, 70}});
  CHECK(log.unwritten(1) == Runs{{0, 1}, {3, 4}, {6, 7}});
  // A view of another element size is no write of a write-only parameter: counted as all
  // of it, which can only spare unwritten elements the poison, never poison written ones.
  log.note(b.view(at::kFloat), {});
  CHECK(log.unwritten(1).empty());
}

TEST_CASE("the write log is exact when threads note neighbouring elements that share its words") {
  at::Tensor y = at::empty({4096});
  WriteLog log;
  log.track(y);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int64_t i = t; i < 4096; i += 4)
        if (i % 97 != 0) log.note(y.narrow(0, i, 1), {});  // every 97th element left out
    });
  for (auto& th : threads) th.join();
  Runs expected;
  for (int64_t i = 0; i < 4096; i += 97) expected.emplace_back(i, i + 1);
  CHECK(log.unwritten(0) == expected);
}

namespace {

// How the kernel below writes its Out y.
enum class Writes {
  Statement,         // y[2*r : 2*r + 2, 2:5] = x[...] + 1
  StatementReadingY, // y[2*r : 2*r + 2, 2:5] = y[...] + 1: y is also read, not write-only
  Assemble,          // y = pl.assemble(y, x[...] + 1, [2*r, 2])
  Store,             // pl.store(x[...] + 1, [2*r, 2], y)
};

// For r in pl.parallel(0, 3), a [6, 8] fp32 y's window [2*r : 2*r + 2, 2:5] gets the same
// window of x (or of y) plus 1, written as `writes` says.
std::string window_program(Writes writes) {
  const std::string lo = R"({"e": "binop", "op": "mul", "lhs": {"e": "var", "slot": 2}, "rhs": {"e": "const", "dtype": "int64", "v": 2}})";
  const std::string hi = R"({"e": "binop", "op": "add", "lhs": )" + lo + R"(, "rhs": {"e": "const", "dtype": "int64", "v": 2}})";
  const std::string rows = R"({"k": "slice", "lo": )" + lo + R"(, "hi": )" + hi + "}";
  const std::string cols = R"({"k": "slice", "lo": {"e": "const", "dtype": "int64", "v": 2}, "hi": {"e": "const", "dtype": "int64", "v": 5}})";
  const std::string window = R"({"e": "subscript", "text": "w", "base": {"e": "var", "slot": %d}, "index": [)" + rows + ", " + cols + "]}";
  auto of = [&](int slot) {
    std::string w = window;
    w.replace(w.find("%d"), 2, std::to_string(slot));
    return w;
  };
  const std::string value = R"({"e": "call", "op": "add", "args": [)" + of(writes == Writes::StatementReadingY ? 1 : 0) +
                            R"(, {"e": "const", "dtype": "fp32", "v": 1.0}], "kwargs": {}})";
  const std::string offsets = R"({"e": "list", "items": [)" + lo + R"(, {"e": "const", "dtype": "int64", "v": 2}]})";
  const std::string y = R"({"e": "var", "slot": 1})";
  std::string write;
  if (writes == Writes::Assemble)
    write = R"({"s": "assign", "line": 4, "slot": 1, "value": {"e": "call", "op": "assemble", "args": [)" + y + ", " +
            value + ", " + offsets + R"(], "kwargs": {}}})";
  else if (writes == Writes::Store)
    write = R"({"s": "expr", "line": 4, "value": {"e": "call", "op": "store", "args": [)" + value + ", " + offsets +
            ", " + y + R"(], "kwargs": {}}})";
  else
    write = R"({"s": "write", "line": 4, "target": 1, "text": "y[...]", "index": [)" + rows + ", " + cols +
            R"(], "value": )" + value + "}";
  return R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/w.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [6, 8], "dtype": "fp32"},
                {"name": "y", "kind": "tensor", "direction": "Out", "shape": [6, 8], "dtype": "fp32"}],
     "slots": ["x", "y", "r"],
     "body": [
       {"s": "for", "line": 2, "kind": "parallel", "var": 2,
        "start": {"e": "const", "dtype": "int64", "v": 0}, "stop": {"e": "const", "dtype": "int64", "v": 3},
        "step": {"e": "const", "dtype": "int64", "v": 1},
        "body": [{"s": "at", "line": 3, "name": "t", "body": [)" + write + R"(]}]},
       {"s": "return", "line": 5, "values": [{"e": "var", "slot": 1}]}]}]})";
}

}  // namespace

TEST_CASE("a dispatch leaves a write-only Out's written windows alone and poisons the rest, as when it filled all first") {
  // Written by write statements, pl.assemble or pl.store alike.
  using namespace pypto_golden::sim;
  for (Writes writes : {Writes::Statement, Writes::StatementReadingY, Writes::Assemble, Writes::Store}) {
    const bool write_only = writes != Writes::StatementReadingY;
    INFO("writes: ", static_cast<int>(writes));
    auto prog = parse_program(window_program(writes), "mem");
    REQUIRE(prog->entry().params[1].write_only == write_only);
    at::Tensor x = at::arange(48, at::kFloat).reshape({6, 8});
    for (bool in_place : {false, true}) {
      at::Tensor y = at::zeros({6, 8});
      std::vector<HostArg> args(2);
      args[0].tensor = x;
      args[1].tensor = y;
      args[1].in_place = in_place;
      Device dev(0, DeviceOptions{2, false, 0});
      const DispatchReport report = dispatch(*prog, args, dev);
      // The report lists exactly the elements never written (columns 0:2 and 5:8 of each row).
      if (write_only)
        CHECK(report.unwritten.at(1) ==
              ElementRuns{{0, 2}, {5, 10}, {13, 18}, {21, 26}, {29, 34}, {37, 42}, {45, 48}});
      else
        CHECK_FALSE(report.unwritten.at(1).has_value());
      CHECK_FALSE(report.unwritten.at(0).has_value());  // an In
      const at::Tensor cols = y.narrow(1, 2, 3);
      if (write_only) CHECK(at::equal(cols, x.narrow(1, 2, 3) + 1));
      else CHECK(at::isnan(cols).all().item<bool>());  // read its own poison, wrote NaN back
      CHECK(at::isnan(y.narrow(1, 0, 2)).all().item<bool>());
      CHECK(at::isnan(y.narrow(1, 5, 3)).all().item<bool>());
    }
  }
}
