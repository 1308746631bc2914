// pl.array ops (create, get_element, update_element) and an "ordered" parallel loop whose
// iterations are linked through an array.
#include "test_ops_util.h"

#include "sim/device.h"
#include "sim/dispatch.h"
#include "sim/program_loader.h"

using namespace ops_test;

TEST_CASE("pl.array.create makes zeros, or -1 (no task) for pl.TASK_ID") {
  Value a = call("array_create", {I(4), D("int32")});
  REQUIRE(a.is_tensor());
  CHECK(same(a.tensor, i32({0, 0, 0, 0})));
  Value t = call("array_create", {I(2), D("task_id")});
  CHECK((t.tensor.scalar_type() == at::kLong));
  CHECK(same(t.tensor, at::tensor(std::vector<int64_t>{-1, -1}, at::kLong)));
  CHECK((call("array_create", {I(3), D("bool")}).tensor.scalar_type() == at::kBool));
  CHECK_THROWS_WITH_AS(call("array_create", {I(0), D("int32")}),
                       "pl.array.create: the extent must be positive, got 0", KernelError);
  CHECK_THROWS_WITH_AS(call("array_create", {I(2), D("fp32")}),
                       "pl.array.create: the dtype must be an integer dtype, pl.BOOL or pl.TASK_ID, got fp32",
                       KernelError);
}

TEST_CASE("arr[i] = v writes the array in place and arr[i] reads it back in its dtype") {
  Value a = call("array_create", {I(3), D("int32")});
  Value same_array = call("array_update_element", {a, I(1), I(41)});
  CHECK(same_array.tensor.data_ptr() == a.tensor.data_ptr());  // one storage, as in PyPTO
  call("array_update_element", {a, I(2), I((int64_t{1} << 32) + 5)});  // wraps as a C store
  Value r = call("array_get_element", {a, I(1)});
  CHECK(r.kind == Value::Kind::Int);
  CHECK((r.stype == at::kInt));
  CHECK(r.i == 41);
  CHECK(call("array_get_element", {a, I(2)}).i == 5);
  Value b = call("array_create", {I(1), D("bool")});
  call("array_update_element", {b, I(0), B(true)});
  CHECK(call("array_get_element", {b, I(0)}).kind == Value::Kind::Bool);
  CHECK_THROWS_WITH_AS(call("array_get_element", {a, I(3)}),
                       "pl.array.get_element: index 3 is outside the array of 3 elements", KernelError);
  CHECK_THROWS_WITH_AS(call("array_update_element", {a, I(-1), I(0)}),
                       "pl.array.update_element: index -1 is outside the array of 3 elements", KernelError);
  CHECK_THROWS_WITH_AS(call("array_update_element", {a, I(0), F(0.5)}),
                       "pl.array.update_element: the value must be an integer scalar, got scalar fp32 0.5; the "
                       "array is int32",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("array_get_element", {I(1), I(0)}),
                       "pl.array.get_element: the array must be a pl.array, got scalar int64 1", KernelError);
}

TEST_CASE("an ordered parallel loop runs its iterations in order, also when shuffled") {
  using namespace pypto_golden::sim;
  // a = pl.array.create(8, INT32); a[0] = 1
  // for k in pl.parallel(1, 8) [ordered]: a[k] = a[k - 1] * 2
  // for k in pl.range(8): pl.write(y, [k], a[k])
  auto c = [](int64_t v) { return "{\"e\": \"const\", \"dtype\": \"int64\", \"v\": " + std::to_string(v) + "}"; };
  auto var = [](int s) { return "{\"e\": \"var\", \"slot\": " + std::to_string(s) + "}"; };
  auto call_e = [](const std::string& op, const std::string& args) {
    return "{\"e\": \"call\", \"op\": \"" + op + "\", \"args\": [" + args + "], \"kwargs\": {}}";
  };
  const std::string prev = call_e("array_get_element", var(1) + ", {\"e\": \"binop\", \"op\": \"sub\", \"lhs\": " +
                                                            var(2) + ", \"rhs\": " + c(1) + "}");
  const std::string text = R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/chain.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "y", "kind": "tensor", "direction": "Out", "shape": [8], "dtype": "int32"}],
     "slots": ["y", "a", "k"],
     "body": [
       {"s": "assign", "line": 2, "slot": 1, "value": )" +
                           call_e("array_create", c(8) + R"(, {"e": "const", "dtype": "dtype", "v": "int32"})") + R"(},
       {"s": "expr", "line": 3, "value": )" + call_e("array_update_element", var(1) + ", " + c(0) + ", " + c(1)) + R"(},
       {"s": "for", "line": 4, "kind": "parallel", "ordered": true, "var": 2, "start": )" + c(1) +
                           R"(, "stop": )" + c(8) + R"(, "step": )" + c(1) + R"(,
        "body": [{"s": "expr", "line": 5, "value": )" +
                           call_e("array_update_element", var(1) + ", " + var(2) + ", {\"e\": \"binop\", \"op\": \"mul\", "
                                  "\"lhs\": " + prev + ", \"rhs\": " + c(2) + "}") + R"(}]},
       {"s": "for", "line": 6, "kind": "range", "var": 2, "start": )" + c(0) + R"(, "stop": )" + c(8) +
                           R"(, "step": )" + c(1) + R"(,
        "body": [{"s": "expr", "line": 7, "value": )" +
                           call_e("write", var(0) + ", {\"e\": \"list\", \"items\": [" + var(2) + "]}, " +
                                  call_e("array_get_element", var(1) + ", " + var(2))) + R"(}]},
       {"s": "return", "line": 8, "values": []}]}]})";
  auto prog = parse_program(text, "chain");
  for (int round = 0; round < 4; ++round) {
    at::Tensor y = at::zeros({8}, at::kInt);
    std::vector<HostArg> args(1);
    args[0].tensor = y;
    Device dev(0, DeviceOptions{2, true, static_cast<uint64_t>(round + 1)});
    dispatch(*prog, args, dev);
    CHECK(same(y, i32({1, 2, 4, 8, 16, 32, 64, 128})));
  }
}
