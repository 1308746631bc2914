// Which parameters a program may write (sim/param_writes.h): what decides whether an In
// tensor's host bytes can be shared with the device; and which a host program reads outside
// its chip launches: what decides whether ranks in workers may keep a resident.
#include "sim/ops/op_table.h"
#include "sim/param_writes.h"
#include "sim/strided_view.h"
#include "test_ops_util.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

using nlohmann::json;
using pypto_golden::sim::op_table;
using pypto_golden::sim::param_uses;

namespace {

// A function of tensors x (0), w (1), y (2) and a scalar n (3), then locals, with `body`.
json function(const std::string& body, int locals) {
  json fn = json::parse(R"({"name": "k", "params": [
      {"name": "x", "kind": "tensor"}, {"name": "w", "kind": "tensor"},
      {"name": "y", "kind": "tensor"}, {"name": "n", "kind": "scalar"}]})");
  fn["slots"] = json::array({"x", "w", "y", "n"});
  for (int k = 0; k < locals; ++k) fn["slots"].push_back("t" + std::to_string(k));
  fn["body"] = json::parse(body);
  return fn;
}

std::vector<bool> written(const std::string& body, int locals = 3) {
  return param_uses(function(body, locals), false).written;
}

std::vector<bool> write_only(const std::string& body) { return param_uses(function(body, 3), false).write_only; }

std::vector<bool> read_on_host(const std::string& body) { return param_uses(function(body, 3), true).read_on_host; }

const char* kVarX = R"({"e": "var", "slot": 0})";
const char* kVarW = R"({"e": "var", "slot": 1})";

std::string call(const std::string& op, const std::vector<std::string>& args) {
  std::string out = R"({"e": "call", "op": ")" + op + R"(", "args": [)";
  for (size_t k = 0; k < args.size(); ++k) out += (k ? ", " : "") + args[k];
  return out + R"(], "kwargs": {}})";
}

std::string var(int slot) { return R"({"e": "var", "slot": )" + std::to_string(slot) + "}"; }
const std::string kZeros = R"({"e": "list", "items": [{"e": "const", "dtype": "int64", "v": 0}]})";

}  // namespace

TEST_CASE("a parameter is written by a write statement on it or on any value computed from it") {
  // y[...] = x + 1: only y.
  CHECK(written(R"([{"s": "write", "line": 1, "target": 2, "index": [], "text": "y", "value": )" +
                call("add", {kVarX, R"({"e": "const", "dtype": "fp32", "v": 1.0})"}) + "}]") ==
        std::vector<bool>{false, false, true, false});
  // t0 = x[...]; t1 = t0; t1[...] = w: x through two assignments, found after a later loop
  // body rebinds t1 (the fixed point).
  CHECK(written(R"([{"s": "for", "line": 1, "kind": "range", "var": 6, "body": [
                      {"s": "write", "line": 2, "target": 5, "index": [], "text": "t1", "value": )" +
                std::string(kVarW) + R"(},
                      {"s": "assign", "line": 3, "slot": 5, "value": {"e": "var", "slot": 4}}]},
                    {"s": "assign", "line": 4, "slot": 4, "value": {"e": "subscript", "base": )" +
                kVarX + R"(, "index": [], "text": "x"}}])") == std::vector<bool>{true, false, false, false});
  // Unpacked from a tuple that holds w, under an if.
  CHECK(written(R"([{"s": "if", "line": 1, "cond": {"e": "const", "dtype": "bool", "v": true}, "else": [], "then": [
                      {"s": "unpack", "line": 2, "slots": [4, 5], "value": {"e": "tuple", "items": [)" +
                std::string(kVarW) + ", " + kVarW + R"(]}},
                      {"s": "write", "line": 3, "target": 5, "index": [], "text": "t1", "value": )" +
                kVarX + "}]}]") == std::vector<bool>{false, true, false, false});
}

TEST_CASE("an op writes only the argument its OpDef names") {
  // pl.store(x_tile + w_tile, offsets, y): y is written, the tile's sources are only read.
  const std::string tile = call("add", {call("load", {kVarX, kZeros, kZeros}), call("load", {kVarW, kZeros, kZeros})});
  CHECK(written(R"([{"s": "expr", "line": 1, "value": )" + call("store", {tile, kZeros, var(2)}) + "}]") ==
        std::vector<bool>{false, false, true, false});
  // pl.assemble(x, w, offsets) inside an at region writes x; pl.write(w, idx, 1.0) writes w.
  CHECK(written(R"([{"s": "at", "line": 1, "name": null, "body": [{"s": "assign", "line": 2, "slot": 4, "value": )" +
                call("assemble", {kVarX, kVarW, kZeros}) + R"(}]}])") == std::vector<bool>{true, false, false, false});
  CHECK(written(R"([{"s": "expr", "line": 1, "value": )" +
                call("write", {kVarW, kZeros, R"({"e": "const", "dtype": "fp32", "v": 1.0})"}) + "}]") ==
        std::vector<bool>{false, true, false, false});
  // Nothing but reads.
  CHECK(written(R"([{"s": "assign", "line": 1, "slot": 4, "value": )" + call("matmul", {kVarX, kVarW}) + "}]") ==
        std::vector<bool>{false, false, false, false});
}

TEST_CASE("a store's or assemble's result is the tensor it writes, not a view of what it wrote there") {
  // t0 = pl.load(x, ...); y = pl.store(t0, offsets, y), in a loop (the next store writes
  // through the y the last one returned): y is written, x only read. It shares its host
  // bytes with the device (an all-reduce's input, loaded and stored tile by tile).
  const auto assign = [](int slot, const std::string& value) {
    return R"({"s": "assign", "line": 1, "slot": )" + std::to_string(slot) + R"(, "value": )" + value + "}";
  };
  const std::string load_x = assign(4, call("load", {kVarX, kZeros, kZeros}));
  CHECK(written(R"([{"s": "for", "line": 1, "kind": "range", "var": 6, "body": [)" + load_x + ", " +
                assign(2, call("store", {var(4), kZeros, var(2)})) + "]}]") ==
        std::vector<bool>{false, false, true, false});
  // t1 = pl.assemble(y, t0, offsets); t1[...] = w: y again, not x.
  CHECK(written("[" + load_x + ", " + assign(5, call("assemble", {var(2), var(4), kZeros})) +
                R"(, {"s": "write", "line": 2, "target": 5, "index": [], "text": "t1", "value": )" + kVarW + "}]") ==
        std::vector<bool>{false, false, true, false});
  // pl.move passes its tile on: t1 = pl.move(t0); t1[...] = w writes x.
  CHECK(written("[" + load_x + ", " + assign(5, call("move", {var(4)})) +
                R"(, {"s": "write", "line": 2, "target": 5, "index": [], "text": "t1", "value": )" + kVarW + "}]") ==
        std::vector<bool>{true, false, false, false});
}

TEST_CASE("every op without a result-into form is either a known writer or a known reader") {
  // An op that writes an argument in place must say which (OpDef::writes_arg), or an In
  // tensor it writes would be shared with the host. Adding an op means deciding here.
  const std::set<std::string> writers = {"store", "assemble", "gather_row", "write", "array_update_element",
                                         "matmul_acc", "remote_store", "remote_put", "remote_get", "signal_notify"};
  const std::set<std::string> readers = {"move", "min", "max", "read", "dim", "array_create", "array_get_element",
                                         "task_dummy", "window_alloc", "window_view", "remote_load", "signal_wait"};
  for (const auto& def : op_table().all()) {
    CAPTURE(def.name);
    CHECK((def.writes_arg >= 0) == (writers.count(def.name) == 1));
    if (def.into == nullptr) CHECK((writers.count(def.name) + readers.count(def.name)) == 1);
  }
}

TEST_CASE("slot numbers that are no slot are passed over: negative, huge, a JSON float (a fuzz finding)") {
  // 3.3e20 parses as a float; converting it to int was undefined behaviour (UBSan's report).
  for (const char* slot : {"-1", "7", "18446744073709551615", "333333333333333333333", "1.5", "\"0\""}) {
    const std::string bad = std::string(R"({"e": "var", "slot": )") + slot + "}";
    CHECK(written(R"([{"s": "assign", "line": 1, "slot": )" + std::string(slot) + R"(, "value": )" + kVarX +
                  R"(}, {"s": "write", "line": 2, "target": 2, "index": [], "text": "y", "value": )" + bad + "}]") ==
          std::vector<bool>{false, false, true, false});
  }
}

TEST_CASE("a parameter is write-only when the body only writes it with write statements or stores on its own name") {
  const auto write_y = [](const std::string& value) {
    return R"({"s": "write", "line": 1, "target": 2, "index": [], "text": "y", "value": )" + value + "}";
  };
  const std::string ret_y = R"({"s": "return", "line": 9, "values": [)" + var(2) + "]}";
  // y[...] = x + 1 in a loop's task, then return y: y is, and w (not used at all); x is read.
  CHECK(write_only(R"([{"s": "for", "line": 1, "kind": "parallel", "var": 4, "body": [{"s": "at", "line": 2, "body": [)" +
                   write_y(call("add", {kVarX, var(4)})) + "]}]}, " + ret_y + "]") ==
        std::vector<bool>{false, true, true, false});
  // pl.store(x, [0], y) and y = pl.assemble(y, x, [0]) write y's window and read nothing of it.
  const std::string store_y = R"({"s": "expr", "line": 1, "value": )" + call("store", {kVarX, kZeros, var(2)}) + "}";
  const std::string assemble_y =
      R"({"s": "assign", "line": 1, "slot": 2, "value": )" + call("assemble", {var(2), kVarX, kZeros}) + "}";
  const auto with_atomic = [](std::string statement, const std::string& member) {
    const std::string empty = R"("kwargs": {})";
    statement.replace(statement.find(empty), empty.size(),
                      R"("kwargs": {"atomic": {"e": "const", "dtype": "str", "v": "AtomicType.)" + member + R"("}})");
    return statement;
  };
  for (const std::string& body : {"[" + store_y + ", " + ret_y + "]", "[" + assemble_y + ", " + ret_y + "]",
                                  "[" + with_atomic(store_y, "None_") + "]"}) {
    INFO(body);
    CHECK(write_only(body) == std::vector<bool>{false, true, true, false});
  }
  // Each other use of y makes it not: read on the right side, an index reading it, read
  // through a view bound to another variable, passed to an op that writes it, reassigned, unpacked into,
  // a loop variable, dumped by a task, returned as a window; an atomic add's store (it reads
  // what it adds to), an assemble into y bound to another name that is read, a store of y's
  // own window.
  const std::string sub_y = R"({"e": "subscript", "base": )" + var(2) + R"(, "index": [], "text": "y"})";
  for (const std::string& body : std::vector<std::string>{
           "[" + write_y(call("add", {sub_y, kVarX})) + "]",
           R"([{"s": "write", "line": 1, "target": 2, "index": [{"k": "index", "v": )" + call("dim", {var(2), kZeros}) +
               R"(}], "text": "y", "value": )" + kVarX + "}]",
           R"([{"s": "assign", "line": 1, "slot": 4, "value": )" + sub_y + "}, " + write_y(call("add", {var(4), kVarX})) +
               "]",
           R"([{"s": "expr", "line": 1, "value": )" + call("matmul_acc", {var(2), kVarX, kVarW}) + "}]",
           R"([{"s": "assign", "line": 1, "slot": 2, "value": )" + std::string(kVarX) + "}, " + write_y(kVarX) + "]",
           R"([{"s": "unpack", "line": 1, "slots": [4, 2], "value": {"e": "tuple", "items": [)" + std::string(kVarX) +
               ", " + kVarW + "]}}, " + write_y(kVarX) + "]",
           std::string(R"([{"s": "for", "line": 1, "kind": "range", "var": 2, "body": []}])"),
           R"([{"s": "at", "line": 1, "dumps": [2], "body": [)" + write_y(kVarX) + "]}]",
           "[" + write_y(kVarX) + R"(, {"s": "return", "line": 9, "values": [)" + sub_y + "]}]",
           "[" + with_atomic(store_y, "Add") + "]",
           "[" + with_atomic(assemble_y, "Add") + "]",
           R"([{"s": "assign", "line": 1, "slot": 4, "value": )" + call("assemble", {var(2), kVarX, kZeros}) + "}, " +
               write_y(call("add", {var(4), kVarX})) + "]",
           R"([{"s": "expr", "line": 1, "value": )" + call("store", {sub_y, kZeros, var(2)}) + "}]",
       }) {
    INFO(body);
    CHECK(write_only(body)[2] == false);
  }
  // A scalar parameter is never one.
  CHECK(write_only("[]") == std::vector<bool>{true, true, true, false});
}

TEST_CASE("a parameter bound to other names as it is or as a window (a spliced call's arguments and result) stays write-only") {
  const auto assign = [](int slot, const std::string& value) {
    return R"({"s": "assign", "line": 1, "slot": )" + std::to_string(slot) + R"(, "value": )" + value + "}";
  };
  const auto write = [](int target, const std::string& value) {
    return R"({"s": "write", "line": 1, "target": )" + std::to_string(target) +
           R"(, "index": [], "text": "t", "value": )" + value + "}";
  };
  // t0 = y (the callee's parameter); t0[...] = x; t0 = pl.store(x, [0], t0); t1 = t0 (its
  // return value); y = t1 (the caller takes the result back).
  const std::string bind = assign(4, var(2));
  const std::string body = "[" + bind + ", " + write(4, kVarX) + ", " +
                           assign(4, call("store", {kVarX, kZeros, var(4)})) + ", " + assign(5, var(4)) + ", " +
                           assign(2, var(5)) + "]";
  CHECK(write_only(body) == std::vector<bool>{false, true, true, false});
  // A window of y bound to a name (blk = y[n:, :], handed to an InCore call), then written
  // and stored into; the window's index reads only the scalar n.
  const std::string window_y = R"({"e": "subscript", "base": )" + var(2) +
                               R"(, "index": [{"k": "slice", "lo": )" + var(3) + R"(, "hi": null}], "text": "y[n:]"})";
  const std::string bind_window = assign(4, window_y);
  CHECK(write_only("[" + bind_window + ", " + write(4, kVarX) + ", " + assign(4, call("store", {kVarX, kZeros, var(4)})) +
                   "]") == std::vector<bool>{false, true, true, false});
  // `return pl.store(t, offsets, out)` in a spliced call: the store's result, y, bound to
  // the call's return variable.
  CHECK(write_only("[" + bind + ", " + assign(5, call("store", {kVarX, kZeros, var(4)})) + ", " + assign(2, var(5)) +
                   "]") == std::vector<bool>{false, true, true, false});
  // Not when a binding is read (in a value, by a load), dumped or given to an op that
  // writes it, when a name bound to y is also given a computed value, or when a window
  // bound to a name is read or its index reads y.
  for (const std::string& bad : std::vector<std::string>{
           "[" + bind + ", " + write(4, call("add", {var(4), kVarX})) + "]",
           "[" + bind + R"(, {"s": "at", "line": 1, "dumps": [4], "body": []}])",
           "[" + bind + R"(, {"s": "expr", "line": 1, "value": )" + call("matmul_acc", {var(4), kVarX, kVarW}) + "}]",
           "[" + bind + ", " + assign(4, call("add", {kVarX, kVarX})) + ", " + write(4, kVarX) + "]",
           "[" + bind_window + ", " + write(5, call("add", {var(4), kVarX})) + "]",
           "[" + assign(4, R"({"e": "subscript", "base": )" + var(2) + R"(, "index": [{"k": "index", "v": )" +
                               call("dim", {var(2), kZeros}) + R"(}], "text": "y[...]"})") + ", " + write(4, kVarX) + "]",
           "[" + bind + ", " + assign(5, call("load", {var(4), kZeros, kZeros})) + "]",
       }) {
    INFO(bad);
    CHECK(write_only(bad)[2] == false);
  }
}

TEST_CASE("a host program reads a parameter outside its launches where any statement but a view binding reads it") {
  const std::string bind_w = R"({"s": "assign", "line": 1, "slot": 4, "value": {"e": "subscript", "base": )" +
                             std::string(kVarW) + R"(, "index": [], "text": "w"}})";
  // t0 = w[...]; a launch binds x[...] and reads t0 and y: only the ranks read them.
  const std::string launch = R"({"s": "launch", "line": 2, "name": "chip", "rank": {"e": "var", "slot": 3},
      "body": [{"s": "assign", "line": 2, "slot": 5, "value": {"e": "subscript", "base": )" +
                             std::string(kVarX) + R"(, "index": [], "text": "x"}},
               {"s": "expr", "line": 2, "value": )" + call("add", {var(4), var(2)}) + "}]}";
  CHECK(read_on_host("[" + bind_w + ", " + launch + "]") == std::vector<bool>{false, false, false, false});
  // The host itself reads t0 (a view of w), in a loop: w is read on the host.
  CHECK(read_on_host("[" + bind_w + R"(, {"s": "for", "line": 3, "kind": "range", "var": 6, "body": [
                       {"s": "expr", "line": 4, "value": )" + call("add", {var(4), kVarX}) + "}]}, " + launch + "]") ==
        std::vector<bool>{true, true, false, false});
  // y written by the host (a write statement), y returned.
  CHECK(read_on_host(R"([{"s": "write", "line": 1, "target": 2, "index": [], "text": "y", "value": )" +
                     std::string(kVarX) + "}]") == std::vector<bool>{true, false, true, false});
  CHECK(read_on_host(R"([{"s": "return", "line": 1, "values": [)" + var(2) + "]}]") ==
        std::vector<bool>{false, false, true, false});
}

TEST_CASE("what each chip launch of a host program may write of its parameters") {
  // Launch 1 binds t0 = x[...] and t1 = y[...] and writes t1 (a view of y); launch 2, in a
  // loop, stores into t2 = w[...] with an op that writes an argument (pl.store's target).
  auto bind = [](int local, const char* base) {
    return R"({"s": "assign", "line": 1, "slot": )" + std::to_string(local) + R"(, "value": {"e": "subscript", "base": )" +
           base + R"(, "index": [], "text": "v"}})";
  };
  const json fn = function(R"([{"s": "launch", "line": 1, "name": "a", "rank": {"e": "var", "slot": 3}, "body": [)" +
                               bind(4, kVarX) + ", " + bind(5, R"({"e": "var", "slot": 2})") +
                               R"(, {"s": "write", "line": 2, "target": 5, "index": [], "text": "t1", "value": )" +
                               var(4) + R"(}]},
      {"s": "for", "line": 3, "kind": "range", "var": 3, "body": [
        {"s": "launch", "line": 4, "name": "b", "rank": {"e": "var", "slot": 3}, "body": [)" +
                               bind(6, kVarW) + R"(, {"s": "expr", "line": 5, "value": )" +
                               call("store", {var(4), kZeros, var(6)}) + "}]}]}]",
                           3);
  const auto writes = param_uses(fn, true).launch_writes;
  REQUIRE(writes.size() == 2);
  const json& body = fn.at("body");
  CHECK(writes.at(&body[0]) == std::vector<bool>{false, false, true, false});
  CHECK(writes.at(&body[1]["body"][0]) == std::vector<bool>{false, true, false, false});
}

TEST_CASE("a write through the result of an op that returns new memory writes no parameter") {
  const auto write_to = [](int slot, const std::string& value) {
    return R"({"s": "write", "line": 9, "target": )" + std::to_string(slot) + R"(, "index": [], "text": "t", "value": )" +
           value + "}";
  };
  const auto assign = [](int slot, const std::string& value) {
    return R"({"s": "assign", "line": 1, "slot": )" + std::to_string(slot) + R"(, "value": )" + value + "}";
  };
  const std::string f32 = R"({"e": "const", "dtype": "dtype", "v": "fp32"})";
  // acc = pl.matmul(x, w); acc = pl.matmul_acc(acc, x, w): the weights stay unwritten
  // (the accumulator is the product's new memory, matmul_acc's result is the accumulator).
  CHECK(written("[" + assign(4, call("matmul", {kVarX, kVarW})) + ", " +
                assign(4, call("matmul_acc", {var(4), kVarX, kVarW})) + ", " + write_to(4, kVarX) + "]") ==
        std::vector<bool>{false, false, false, false});
  // The same accumulator started as a view of y: y is written, x and w are not.
  CHECK(written("[" + assign(4, R"({"e": "subscript", "base": )" + var(2) + R"(, "index": [], "text": "y"})") + ", " +
                assign(5, call("matmul_acc", {var(4), kVarX, kVarW})) + ", " + write_to(5, kVarX) + "]") ==
        std::vector<bool>{false, false, true, false});
  // t = pl.cast(x, fp32) is new memory even when x is fp32; so is an op of one, moved.
  CHECK(written("[" + assign(4, call("cast", {kVarX, f32})) + ", " + write_to(4, kVarW) + "]") ==
        std::vector<bool>{false, false, false, false});
  CHECK(written("[" + assign(4, call("move", {call("exp", {kVarW})})) + ", " + write_to(4, kVarX) + "]") ==
        std::vector<bool>{false, false, false, false});
  // An op whose result may be its argument keeps the alias: pl.move(x), pl.reshape(w, ...).
  CHECK(written("[" + assign(4, call("move", {kVarX})) + ", " + write_to(4, kVarW) + "]") ==
        std::vector<bool>{true, false, false, false});
  CHECK(written("[" + assign(4, call("reshape", {kVarW, kZeros})) + ", " + write_to(4, kVarX) + "]") ==
        std::vector<bool>{false, true, false, false});
  // An op writing in place the result of a new-memory op: pl.store(tile, offsets, pl.add(x, w)).
  CHECK(written(R"([{"s": "expr", "line": 1, "value": )" +
                call("store", {kVarX, kZeros, call("add", {kVarX, kVarW})}) + "}]") ==
        std::vector<bool>{false, false, false, false});
}

TEST_CASE("an op that says its result is new memory returns none of its other arguments' memory and changes none") {
  // A representative call of every op that narrows OpDef::result_views: the result must not
  // share memory with an argument outside the mask (a view there would let a program write
  // an In tensor the dispatch shares copy-on-write with the host). Narrowing an op means
  // adding its call here.
  using namespace ops_test;
  const at::Tensor x = at::rand({4, 8}), y = at::rand({4, 8}), rows = at::rand({4, 1}), cols = at::rand({1, 8});
  const at::Tensor a = at::rand({4, 8}), b = at::rand({8, 4}), acc = at::zeros({4, 4});
  const at::Tensor index = at::arange(8, at::kInt).repeat({4, 1}), keys = at::rand({1, 128});
  const at::Tensor ramp = call("arange", {I(0), L({1, 128}), D("uint32")}).tensor;
  const at::Tensor pairs = call("sort32", {T(keys), T(ramp)}).tensor;
  using Call = std::pair<std::vector<Value>, Kw>;
  std::map<std::string, Call> calls;
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum", "cmp", "concat"}) calls[op] = {{T(x), T(y)}, {}};
  for (const char* op : {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "recip", "row_sum", "row_max", "row_min",
                         "col_sum", "col_max", "col_min", "row_argmax", "row_argmin", "col_argmax", "col_argmin"})
    calls[op] = {{T(x)}, {}};
  for (const char* op : {"add", "sub", "mul", "div", "max", "min", "expdif"}) {
    calls[std::string("row_expand_") + op] = {{T(x), T(rows)}, {}};
    calls[std::string("col_expand_") + op] = {{T(x), T(cols)}, {}};
  }
  calls["row_expand"] = {{T(x), T(rows)}, {}};
  calls["col_expand"] = {{T(x), T(cols)}, {}};
  calls["fmods"] = {{T(x), F(0.5)}, {}};
  calls["cast"] = {{T(x), D("fp32")}, {}};  // to its own dtype
  calls["matmul"] = {{T(a), T(b)}, {{"out_dtype", D("fp32")}}};
  calls["matmul_acc"] = {{T(acc), T(a), T(b)}, {}};
  for (const char* op : {"create_tensor", "create_tile", "create_l1"}) calls[op] = {{L({2, 3}), D("fp32")}, {}};
  calls["full"] = {{L({2, 2}), D("fp32"), F(1.5)}, {}};
  calls["arange"] = {{I(5), L({1, 4})}, {}};
  calls["sort32"] = {{T(keys), T(ramp)}, {}};
  calls["mrgsort"] = {{T(pairs)}, {{"block_len", I(64)}}};
  calls["gather"] = {{T(x), I(-1), T(index)}, {}};
  calls["scatter"] = {{T(x)}, {{"mask_pattern", S("MaskPattern.P0101")}, {"dst", T(at::zeros({4, 16}))}}};
  calls["min"] = {{I(3), I(-2)}, {}};
  calls["max"] = {{F(1.5), F(0.25)}, {}};
  calls["read"] = {{T(x), L({1, 2})}, {}};
  calls["dim"] = {{T(x), I(-1)}, {}};
  calls["array_create"] = {{I(4), D("int32")}, {}};
  const Value array = call("array_create", {I(4), D("int32")});
  calls["array_get_element"] = {{array, I(1)}, {}};
  // The ops that return the tensor they write (or pass on) itself.
  calls["store"] = {{T(at::rand({2, 8})), L({1, 0}), T(at::zeros({4, 8}))}, {}};
  calls["assemble"] = {{T(at::zeros({4, 8})), T(at::rand({2, 8})), L({2, 0})}, {}};
  calls["gather_row"] = {{T(at::zeros({4, 8})), T(x), L({1, 0}), L({0, 0}), L({2, 8})}, {}};
  calls["move"] = {{T(x)}, {}};

  std::set<std::string> narrowed;
  for (const auto& def : op_table().all())
    if (def.result_views != pypto_golden::sim::OpDef::kAnyArg) narrowed.insert(def.name);
  std::set<std::string> sampled;
  for (const auto& [name, c] : calls) sampled.insert(name);
  CHECK(narrowed == sampled);
  for (const auto& [name, c] : calls) {
    const std::string op_name = name;  // CAPTURE captures in a lambda, which C++17 forbids for a structured binding
    CAPTURE(op_name);
    const uint32_t views = op(name.c_str()).result_views;
    // Nor does it change an argument it does not write: a pl.load handed straight to it may
    // be a view of the loaded tensor (CallExpr's transient loads).
    std::vector<at::Tensor> before;
    for (const Value& v : c.first) before.push_back(v.is_tensor() ? v.tensor.clone() : at::Tensor());
    const Value r = call(name.c_str(), c.first, c.second);
    for (size_t k = 0; k < c.first.size(); ++k)
      if (before[k].defined() && static_cast<int>(k) != op(name.c_str()).writes_arg) {
        CAPTURE(k);
        CHECK(at::equal(before[k], c.first[k].tensor));
      }
    if (!r.is_tensor()) continue;
    for (size_t k = 0; k < c.first.size(); ++k)
      if (c.first[k].is_tensor()) {
        CAPTURE(k);
        CHECK(pypto_golden::sim::shares_memory(r.tensor, c.first[k].tensor) == ((views >> k & 1u) != 0));
      }
    for (const auto& [key, v] : c.second)
      if (v.is_tensor()) CHECK_FALSE(pypto_golden::sim::shares_memory(r.tensor, v.tensor));
  }
}
