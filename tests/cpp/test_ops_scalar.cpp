// Scalar-level ops: pl.min / pl.max, pl.read / pl.write, pl.tensor.dim; ops in a program.
#include "test_ops_util.h"

#include "sim/dispatch.h"
#include "sim/expressions.h"
#include "sim/program_loader.h"

using namespace ops_test;

TEST_CASE("pl.min and pl.max of scalars") {
  Value a = call("min", {I(3), I(-2)});
  CHECK(a.kind == Value::Kind::Int);
  CHECK(a.i == -2);
  CHECK(call("max", {I(3), I(-2)}).i == 3);
  Value f = call("max", {F(1.5), I(2)});
  CHECK(f.kind == Value::Kind::Float);
  CHECK(f.f == 2.0);
  CHECK(call("min", {F(1.5), F(0.25)}).f == 0.25);
  CHECK_THROWS_WITH_AS(call("max", {T(at::ones({2})), I(1)}),
                       "pl.max takes two scalars (for tensors use pl.maximum or pl.row_max), got tensor fp32 (2,) and "
                       "scalar int64 1",
                       KernelError);
}

TEST_CASE("pl.read and pl.write access one element by indices or flat offset") {
  at::Tensor x = at::arange(12, at::kFloat).reshape({3, 4});
  Value r = call("read", {T(x), L({1, 2})});
  CHECK(r.kind == Value::Kind::Float);
  CHECK((r.stype == at::kFloat));
  CHECK(r.f == 6.0);
  CHECK(call("read", {T(x), I(11)}).f == 11.0);  // flat row-major offset
  at::Tensor n = i32({5, 6, 7});
  Value i = call("read", {T(n), L({2})});
  CHECK(i.kind == Value::Kind::Int);
  CHECK((i.stype == at::kInt));
  CHECK(i.i == 7);
  call("write", {T(x), L({2, 3}), F(-1.0)});
  CHECK(x[2][3].item<float>() == -1.0f);
  call("write", {T(x), I(0), I(9)});
  CHECK(x[0][0].item<float>() == 9.0f);
  call("write", {T(n), L({0}), I(-4)});
  CHECK(same(n, i32({-4, 6, 7})));
  CHECK_THROWS_WITH_AS(call("read", {T(x), L({3, 0})}),
                       "pl.read: index [3, 0] is outside the tensor: axis 0 has extent 3 (shape (3, 4))", KernelError);
  CHECK_THROWS_WITH_AS(call("read", {T(x), I(12)}),
                       "pl.read: flat offset 12 is outside the tensor of 12 elements (shape (3, 4))", KernelError);
  CHECK_THROWS_WITH_AS(call("write", {T(n), L({0}), F(0.5)}),
                       "pl.write: cannot store scalar fp32 0.5 into a int32 tensor; convert it with pl.cast first",
                       KernelError);
}

TEST_CASE("pl.tensor.dim gives the runtime extent as int64") {
  at::Tensor x = at::zeros({3, 7});
  Value d = call("dim", {T(x), I(-1)});
  CHECK(d.kind == Value::Kind::Int);
  CHECK((d.stype == at::kLong));
  CHECK(d.i == 7);
  CHECK(call("dim", {T(x), I(0)}).i == 3);
  CHECK_THROWS_WITH_AS(call("dim", {T(x), I(2)}), "pl.tensor.dim: axis 2 is out of range for shape (3, 7)", KernelError);
}

TEST_CASE("every op of the table is reachable and registered once") {
  const char* names[] = {"add", "sub", "mul", "div", "maximum", "minimum", "neg", "abs", "exp", "log", "sqrt",
                         "rsqrt", "recip", "cmp", "create_tensor", "create_tile", "full", "arange", "slice",
                         "reshape", "transpose", "concat", "load", "store", "assemble", "move", "set_validshape",
                         "fillpad", "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min",
                         "row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div", "row_expand_max",
                         "row_expand_min", "row_expand_expdif", "row_expand", "col_expand_add", "col_expand_sub",
                         "col_expand_mul", "col_expand_div", "col_expand_max", "col_expand_min", "col_expand_expdif",
                         "col_expand", "matmul", "matmul_acc", "cast", "sort32", "mrgsort", "gather", "min", "max",
                         "read", "write", "dim"};
  for (const char* n : names) {
    INFO("op ", std::string(n));
    CHECK(pypto_golden::sim::op_table().find(n) != nullptr);
  }
}

TEST_CASE("a softmax kernel of table ops runs on the simulator") {
  using namespace pypto_golden::sim;
  // for r in pl.parallel(0, 8, 4): t = x[r:r+4, :]; m = row_max(t); e = exp(row_expand_sub(t, m));
  //   y[r:r+4, :] = row_expand_div(e, row_sum(e))
  auto var = [](int s) { return "{\"e\": \"var\", \"slot\": " + std::to_string(s) + "}"; };
  auto call_e = [](const std::string& op, const std::string& args) {
    return "{\"e\": \"call\", \"op\": \"" + op + "\", \"args\": [" + args + "], \"kwargs\": {}}";
  };
  const std::string rows = R"([{"k": "slice", "lo": {"e": "var", "slot": 2},
      "hi": {"e": "binop", "op": "add", "lhs": {"e": "var", "slot": 2}, "rhs": {"e": "const", "dtype": "int64", "v": 4}}}])";
  const std::string text = R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/softmax.py", "entry": "k",
   "functions": [{"name": "k", "line": 1,
     "params": [{"name": "x", "kind": "tensor", "direction": "In", "shape": [8, 16], "dtype": "fp32"},
                {"name": "y", "kind": "tensor", "direction": "Out", "shape": [8, 16], "dtype": "fp32"}],
     "slots": ["x", "y", "r", "t", "e"],
     "body": [
       {"s": "for", "line": 5, "kind": "parallel", "var": 2,
        "start": {"e": "const", "dtype": "int64", "v": 0}, "stop": {"e": "const", "dtype": "int64", "v": 8},
        "step": {"e": "const", "dtype": "int64", "v": 4},
        "body": [
          {"s": "assign", "line": 6, "slot": 3, "value": {"e": "subscript", "text": "x[r:r + 4]", "base": )" +
                           var(0) + R"(, "index": )" + rows + R"(}},
          {"s": "assign", "line": 7, "slot": 4, "value": )" +
                           call_e("exp", call_e("row_expand_sub", var(3) + ", " + call_e("row_max", var(3)))) + R"(},
          {"s": "write", "line": 8, "target": 1, "text": "y[r:r + 4]", "index": )" + rows + R"(,
           "value": )" + call_e("row_expand_div", var(4) + ", " + call_e("row_sum", var(4))) + R"(}]},
       {"s": "return", "line": 9, "values": [)" + var(1) + R"(]}]}]})";
  auto prog = parse_program(text, "softmax");
  at::manual_seed(13);
  at::Tensor x = at::randn({8, 16});
  at::Tensor y = at::zeros({8, 16});
  std::vector<HostArg> args(2);
  args[0].tensor = x;
  args[1].tensor = y;
  Device dev(0, DeviceOptions{2, true, 3});
  dispatch(*prog, args, dev);
  at::Tensor e = at::exp(x - std::get<0>(x.max(-1, true)));
  CHECK(same(y, e / e.sum(-1, true)));
}

TEST_CASE("ops allocate the tensors they create in the device's memory when given a device") {
  using namespace pypto_golden::sim;
  Device dev(0, DeviceOptions{1, false, 0});
  OpArgs a = make_args({T(at::ones({4, 4})), F(2.0)});
  a.device = &dev;
  Value r = op("mul").fn(a);
  CHECK(same(r.tensor, at::full({4, 4}, 2.0)));
  // Device memory is a pool: the block returns to it when the result is released.
  void* block = r.tensor.data_ptr();
  r = Value::none();
  Value again = op("mul").fn(a);
  CHECK(again.tensor.data_ptr() == block);
}

TEST_CASE("an index's integer fast path gives eval's value, and eval's error where it has none") {
  using namespace pypto_golden::sim;
  auto c = [](Value v) -> ExprPtr { return std::make_unique<ConstExpr>(std::move(v)); };
  auto v = [](int slot) -> ExprPtr { return std::make_unique<VarExpr>(slot); };
  auto bin = [](BinOp op, ExprPtr a, ExprPtr b) -> ExprPtr {
    return std::make_unique<BinOpExpr>(op, "op", std::move(a), std::move(b), nullptr);
  };
  Function fn;
  fn.slot_names = {"i", "b", "f", "unset"};
  Frame frame;
  frame.function = &fn;
  frame.slots = {Value::from_int(-7, c10::kInt), Value::from_bool(true), Value::from_float(2.5), Value{}};
  int64_t out = 0;
  // Every integer form agrees with eval(): floor division and modulo round toward -inf,
  // sums wrap, a bool counts as 0 / 1.
  for (BinOp op : {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::FloorDiv, BinOp::Mod}) {
    for (int64_t rhs : {int64_t{2}, int64_t{-3}, INT64_MAX}) {
      ExprPtr e = bin(op, v(0), c(Value::from_int(rhs)));
      CHECK(e->try_int(frame, out));
      CHECK(out == e->eval(frame).as_int("x"));
    }
  }
  ExprPtr with_bool = bin(BinOp::Add, v(1), bin(BinOp::Mul, c(Value::from_int(3)), v(0)));
  CHECK(with_bool->try_int(frame, out));
  CHECK(out == -20);
  CHECK(eval_int(*with_bool, frame, "x") == -20);
  // Not an integer, or an error: no fast path, and eval_int says what eval says.
  ExprPtr by_zero = bin(BinOp::FloorDiv, v(0), c(Value::from_int(0)));
  CHECK_FALSE(by_zero->try_int(frame, out));
  CHECK_THROWS_WITH_AS(eval_int(*by_zero, frame, "a slice start"), "integer division by zero in 'op'", KernelError);
  ExprPtr with_float = bin(BinOp::Add, v(0), v(2));
  CHECK_FALSE(with_float->try_int(frame, out));
  CHECK_THROWS_WITH_AS(eval_int(*with_float, frame, "a slice start"),
                       "a slice start must be an integer scalar, got scalar fp32 -4.5", KernelError);
  CHECK_FALSE(v(3)->try_int(frame, out));
  CHECK_THROWS_WITH_AS(eval_int(*v(3), frame, "an index"), "'unset' is used before it is assigned", KernelError);
  CHECK_FALSE(bin(BinOp::Lt, v(0), c(Value::from_int(1)))->try_int(frame, out));
  CHECK(eval_int(*bin(BinOp::Lt, v(0), c(Value::from_int(1))), frame, "x") == 1);
}
