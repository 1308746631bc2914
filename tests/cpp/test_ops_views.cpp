// Creation, views, writes (load / store / assemble) and valid regions.
#include "test_ops_util.h"

#include "sim/device.h"
#include "sim/expressions.h"
#include "sim/ops/valid_padding.h"
#include "sim/strided_view.h"
#include "sim/window.h"

#include <thread>

using namespace ops_test;
using pypto_golden::sim::assign_value;

TEST_CASE("create_tensor, full and arange") {
  Value z = call("create_tensor", {L({2, 3}), D("fp32")});
  CHECK(same(z.tensor, at::zeros({2, 3})));
  CHECK(same(call("create_tensor", {L({2}), D("int32")}, {{"init_value", I(7)}}).tensor, i32({7, 7})));
  CHECK(same(call("full", {L({2, 2}), D("bfloat16"), F(1.5)}).tensor, at::full({2, 2}, 1.5, at::kBFloat16)));
  CHECK(same(call("full", {L({3}), D("int32"), F(4.0)}).tensor, i32({4, 4, 4})));
  CHECK_THROWS_WITH_AS(call("full", {L({3}), D("int32"), F(0.5)}),
                       "pl.full: value scalar fp32 0.5 does not fit a int32 tensor; use an integer value", KernelError);
  Value fv = call("full", {L({4, 4}), D("fp32"), F(0.0)}, {{"valid_shape", L({2, 3})}});
  CHECK(fv.valid == std::vector<int64_t>{2, 3});
  CHECK(same(call("arange", {I(5), L({1, 4})}).tensor, i32({5, 6, 7, 8}).reshape({1, 4})));
  CHECK(same(call("arange", {I(5), L({1, 4}), D("int32")}, {{"descending", B(true)}}).tensor,
             i32({5, 4, 3, 2}).reshape({1, 4})));
  // UINT32 is stored as int64 and wraps modulo 2^32.
  CHECK(same(call("arange", {I(-1), L({1, 3}), D("uint32")}).tensor, i64({4294967295LL, 0, 1}).reshape({1, 3})));
  CHECK_THROWS_WITH_AS(call("arange", {I(0), L({2, 4})}),
                       "pl.arange: leading dimensions must be 1 (shape [1, N]), got [2, 4]", KernelError);
  CHECK_THROWS_WITH_AS(call("arange", {I(0), L({1, 4}), D("fp32")}),
                       "pl.arange: dtype must be an integer type (int16, int32, uint16, uint32), got fp32", KernelError);
}

TEST_CASE("slice is a view; its valid region is the source's cut to the window") {
  at::Tensor x = at::arange(48, at::kFloat).reshape({6, 8});
  Value s = call("slice", {T(x), L({2, 4}), L({1, 2})});
  CHECK(same(s.tensor, x.narrow(0, 1, 2).narrow(1, 2, 4)));
  s.tensor.fill_(-1.0f);  // writes through the view land in x
  CHECK(x[1][2].item<float>() == -1.0f);
  CHECK(s.fully_valid());
  Value p = call("slice", {TV(x, {4, 5}), L({4, 4}), L({2, 2})});
  CHECK(p.valid == std::vector<int64_t>{2, 3});
  Value q = call("slice", {T(x), L({4, 4}), L({0, 0}), L({3, 4})});
  CHECK(q.valid == std::vector<int64_t>{3, 4});
  CHECK(q.tensor.data_ptr() == x.data_ptr());
  // A window past the tensor's end is cut there, as the device clamps the view: the rest is
  // padding (zero), outside the valid region.
  Value o = call("slice", {T(x), L({4, 4}), L({3, 0})});
  CHECK(o.valid == std::vector<int64_t>{3, 4});
  CHECK(same(o.tensor.narrow(0, 0, 3), x.narrow(0, 3, 3).narrow(1, 0, 4)));
  CHECK(o.tensor[3].abs().sum().item<float>() == 0.0f);
  // With a valid_shape, only the valid extent has to be inside the tensor (PyPTO's rule).
  Value w = call("slice", {T(x), L({4, 4}), L({4, 0}), L({2, 4})});
  CHECK(w.valid == std::vector<int64_t>{2, 4});
  CHECK(same(w.tensor.narrow(0, 0, 2), x.narrow(0, 4, 2).narrow(1, 0, 4)));
  CHECK_THROWS_WITH_AS(call("slice", {T(x), L({4, 4}), L({4, 0}), L({3, 4})}),
                       "pl.slice: the read is outside the tensor: axis 0 reads [4:7] (offset 4 + valid_shape 3) but "
                       "the extent is 6 (shape (6, 8)); pass clamp=True to narrow the read to the tensor's end",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("slice", {T(x), L({2, 4}), L({7, 0})}),
                       "pl.slice: the window is outside the tensor: axis 0 asks for [7:9] but the extent is 6 (shape "
                       "(6, 8))",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("slice", {T(x), L({2, 4}), L({0, 0}), L({3, 4})}),
                       "pl.slice: valid_shape [3, 4] exceeds the shape [2, 4]", KernelError);
  // clamp=True: the window overhangs; the valid region stops at the edge, the rest is zero.
  Value c = call("slice", {T(x), L({4, 4}), L({4, 6})}, {{"clamp", B(true)}});
  CHECK(c.valid == std::vector<int64_t>{2, 2});
  CHECK(same(c.tensor.narrow(0, 0, 2).narrow(1, 0, 2), x.narrow(0, 4, 2).narrow(1, 6, 2)));
  CHECK(c.tensor.narrow(0, 2, 2).abs().sum().item<float>() == 0.0f);
  // pad_value: a snapshot whose padding holds the value.
  Value m = call("slice", {T(x), L({2, 4}), L({0, 0}), L({2, 2})}, {{"pad_value", S("PadValue.min")}});
  CHECK(m.tensor[0][3].item<float>() == std::numeric_limits<float>::lowest());
  // drop_dims removes unit axes.
  Value d = call("slice", {T(x), L({1, 8}), L({2, 0})}, {{"drop_dims", L({0})}});
  CHECK(same(d.tensor, x[2]));
}

TEST_CASE("reshape is a view that carries a flat-prefix valid region") {
  at::Tensor x = at::arange(32, at::kFloat).reshape({4, 8});
  Value r = call("reshape", {T(x), L({8, 4})});
  CHECK(r.tensor.data_ptr() == x.data_ptr());
  CHECK(same(r.tensor, x.reshape({8, 4})));
  CHECK(same(call("reshape", {T(x), L({-1})}).tensor, x.reshape({32})));
  CHECK(call("reshape", {TV(x, {2, 8}), L({32})}).valid == std::vector<int64_t>{16});
  CHECK(call("reshape", {TV(x, {2, 8}), L({8, 4})}).valid == std::vector<int64_t>{4, 4});
  CHECK(call("reshape", {TV(x.narrow(0, 0, 1), {1, 5}), L({8, 1})}).valid == std::vector<int64_t>{5, 1});
  CHECK_THROWS_WITH_AS(call("reshape", {TV(x, {2, 5}), L({32})}),
                       "pl.reshape: the valid region (2, 5) of the (4, 8) input is not a contiguous prefix of the "
                       "buffer, so no box of shape [32] holds the same cells",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("reshape", {T(x), L({5, 6})}),
                       "pl.reshape: cannot reshape (4, 8) (32 elements) to [5, 6] (30 elements)", KernelError);
  // A strided window cannot be viewed: the result is a snapshot with the same values.
  at::Tensor col = x.narrow(1, 0, 2);
  CHECK(same(call("reshape", {T(col), L({8})}).tensor, col.reshape({8})));
}

TEST_CASE("transpose_view swaps the last two axes of the same bytes") {
  at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3});
  Value t = call("transpose_view", {TV(x, {1, 3})});
  CHECK(same(t.tensor, x.t()));
  CHECK(t.tensor.data_ptr() == x.data_ptr());
  CHECK(t.valid == std::vector<int64_t>{3, 1});
  CHECK_THROWS_WITH_AS(call("transpose_view", {T(at::ones({3}))}),
                       "pl.transpose_view: tile must have rank >= 2, got shape (3,)", KernelError);
}

TEST_CASE("create_l1 and gather_row fill an accumulator in place, row windows at a time") {
  at::Tensor pool = at::arange(40, at::kFloat).reshape({10, 4});
  Value acc = call("create_l1", {L({4, 4}), D("fp32")});
  CHECK(same(acc.tensor, at::zeros({4, 4})));
  Value r = call("gather_row", {acc, T(pool), L({0, 0}), L({7, 0}), L({1, 4})});
  CHECK(r.tensor.is_same(acc.tensor));
  // A window of 4 rows of which 2 are transferred (valid_shape), into rows 1..2.
  call("gather_row", {acc, T(pool), L({1, 0}), L({3, 0}), L({4, 4})}, {{"valid_shape", L({2, 4})}});
  CHECK(same(acc.tensor.narrow(0, 0, 1), pool.narrow(0, 7, 1)));
  CHECK(same(acc.tensor.narrow(0, 1, 2), pool.narrow(0, 3, 2)));
  CHECK(same(acc.tensor[3], at::zeros({4})));
  // transpose=True: the [1, 4] row lands as a [4, 1] column.
  Value t = call("create_l1", {L({4, 2}), D("fp32"), B(true)});
  call("gather_row", {t, T(pool), L({0, 1}), L({2, 0}), L({1, 4}), B(true)});
  CHECK(same(t.tensor.select(1, 1), pool[2]));
  CHECK_THROWS_WITH_AS(call("gather_row", {acc, T(pool), L({0, 0}), L({9, 0}), L({2, 4})}),
                       "pl.gather_row: the read is outside src: axis 0 reads [9:11] but the extent is 10 (src shape "
                       "(10, 4))",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("gather_row", {acc, T(pool), L({3, 0}), L({0, 0}), L({2, 4})}),
                       "pl.gather_row: the write is outside acc: axis 0 gets [3:5] but the extent is 4 (acc shape "
                       "(4, 4))",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("gather_row", {acc, T(pool.to(at::kBFloat16)), L({0, 0}), L({0, 0}), L({1, 4})}),
                       "pl.gather_row: acc and src must share a dtype, got fp32 and bfloat16", KernelError);
  CHECK_THROWS_WITH_AS(call("create_l1", {L({0, 4}), D("fp32")}),
                       "pl.create_l1: shape [0, 4] must have positive extents", KernelError);
}

TEST_CASE("transpose and concat") {
  at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3});
  Value t = call("transpose", {TV(x, {1, 3}), I(0), I(-1)});
  CHECK(same(t.tensor, x.t()));
  CHECK(t.valid == std::vector<int64_t>{3, 1});
  CHECK_THROWS_WITH_AS(call("transpose", {T(x), I(1), I(-1)}), "pl.transpose: axis1 and axis2 must differ, both are 1",
                       KernelError);
  at::Tensor y = at::ones({2, 2});
  CHECK(same(call("concat", {T(x), T(y)}).tensor, at::cat({x, y}, 1)));
  CHECK_THROWS_WITH_AS(call("concat", {T(x), T(at::ones({3, 2}))}),
                       "pl.concat: shapes (2, 3) and (3, 2) differ outside the last axis", KernelError);
}

TEST_CASE("a transient load views its window when it is fully valid; otherwise it copies") {
  at::Tensor x = at::arange(48, at::kFloat).reshape({6, 8}) + 1;
  const auto load = [&](std::vector<Value> pos) {
    OpArgs a = make_args(std::move(pos), {}, "load");
    a.transient = true;
    return op("load").fn(a);
  };
  const Value v = load({T(x), L({2, 4}), L({3, 4})});
  CHECK(v.fully_valid());
  CHECK(same(v.tensor, x.narrow(0, 2, 3).narrow(1, 4, 4)));
  CHECK(v.tensor.data_ptr<float>() == x.data_ptr<float>() + 2 * 8 + 4);
  const Value part = load({T(x), L({4, 0}), L({4, 8}), L({2, 8})});  // the padding must read as zero
  CHECK_FALSE(pypto_golden::sim::shares_memory(part.tensor, x));
  CHECK(same(part.tensor.narrow(0, 2, 2), at::zeros({2, 8})));
}

TEST_CASE("a load from an argument the dispatch holds read-only views its window; from any other tensor it copies") {
  at::Tensor x = at::arange(48, at::kFloat).reshape({6, 8}) + 1, other = x.clone();
  pypto_golden::sim::Device dev(0, pypto_golden::sim::DeviceOptions{});
  dev.set_read_only_storages({x.storage().unsafeGetStorageImpl()});
  const auto load = [&](std::vector<Value> pos) {
    OpArgs a = make_args(std::move(pos), {}, "load");
    a.device = &dev;
    return op("load").fn(a);
  };
  const Value v = load({T(x), L({2, 4}), L({3, 4})});
  CHECK(same(v.tensor, x.narrow(0, 2, 3).narrow(1, 4, 4)));
  CHECK(v.tensor.data_ptr<float>() == x.data_ptr<float>() + 2 * 8 + 4);
  const Value copied = load({T(other), L({2, 4}), L({3, 4})});
  CHECK(same(copied.tensor, v.tensor));
  CHECK_FALSE(pypto_golden::sim::shares_memory(copied.tensor, other));
  const Value part = load({T(x), L({4, 0}), L({4, 8}), L({2, 8})});  // the padding must read as zero
  CHECK_FALSE(pypto_golden::sim::shares_memory(part.tensor, x));
  dev.set_read_only_storages({});
  CHECK_FALSE(pypto_golden::sim::shares_memory(load({T(x), L({2, 4}), L({3, 4})}).tensor, x));
}

namespace {

using pypto_golden::sim::CallExpr;
using pypto_golden::sim::ConstExpr;
using pypto_golden::sim::ExprPtr;
using pypto_golden::sim::SequenceExpr;
using pypto_golden::sim::VarExpr;

ExprPtr var(int slot) { return std::make_unique<VarExpr>(slot); }
ExprPtr ints(std::vector<int64_t> items) {
  std::vector<ExprPtr> v;
  for (int64_t i : items) v.push_back(std::make_unique<ConstExpr>(I(i)));
  return std::make_unique<SequenceExpr>(false, std::move(v));
}
std::unique_ptr<CallExpr> call_expr(const char* name, std::vector<ExprPtr> args) {
  return std::make_unique<CallExpr>(&op(name), std::move(args), std::vector<std::pair<std::string, ExprPtr>>{});
}
std::unique_ptr<CallExpr> load_of(int slot) { return call_expr("load", [&] {
    std::vector<ExprPtr> a;
    a.push_back(var(slot));
    a.push_back(ints({0, 0}));
    a.push_back(ints({4, 8}));
    return a;
  }()); }

// Whether `load` is transient once passed as argument `at` of `name` among `others`.
bool transient_in(const char* name, size_t at, std::vector<ExprPtr> others) {
  std::unique_ptr<CallExpr> load = load_of(1);
  const CallExpr* seen = load.get();
  others.insert(others.begin() + static_cast<std::ptrdiff_t>(at), std::move(load));
  const std::unique_ptr<CallExpr> parent = call_expr(name, std::move(others));
  return seen->transient();
}

template <typename... E>
std::vector<ExprPtr> exprs(E... e) {
  std::vector<ExprPtr> v;
  (v.push_back(std::move(e)), ...);
  return v;
}

}  // namespace

TEST_CASE("a load is transient only inside an op that makes new memory and where nothing else writes") {
  CHECK(transient_in("add", 1, exprs(var(0))));             // acc = pl.add(acc, pl.load(...))
  CHECK(transient_in("add", 0, exprs(load_of(2))));         // two loads
  CHECK(transient_in("row_sum", 0, {}));
  CHECK(transient_in("matmul", 0, exprs(var(0))));
  CHECK_FALSE(transient_in("reshape", 0, exprs(ints({32}))));      // its result views the load
  CHECK_FALSE(transient_in("matmul_acc", 0, exprs(var(0), var(2))));  // the accumulator is the result
  CHECK_FALSE(transient_in("matmul_acc", 1, exprs(var(0), var(2))));  // it writes in place
  CHECK_FALSE(transient_in("store", 0, exprs(ints({0, 0}), var(0))));  // it writes
  // Another argument that may write what the view sees before the op reads it.
  CHECK_FALSE(transient_in("add", 0, exprs(call_expr("store", exprs(var(3), ints({0, 0}), var(1))))));
  CHECK_FALSE(transient_in("add", 0, exprs(call_expr("add", exprs(var(3), var(4))))));  // only loads are known not to
  // A load alone, as a statement's value, is kept: it copies.
  CHECK_FALSE(load_of(0)->transient());
}

TEST_CASE("load copies a window; the padding outside its valid region is zero") {
  at::Tensor x = at::arange(48, at::kFloat).reshape({6, 8}) + 1;
  Value l = call("load", {T(x), L({2, 4}), L({3, 4})});
  CHECK(same(l.tensor, x.narrow(0, 2, 3).narrow(1, 4, 4)));
  CHECK(l.tensor.data_ptr() != x.data_ptr());
  Value v = call("load", {T(x), L({0, 0}), L({2, 4}), L({1, 3})});
  CHECK(v.valid == std::vector<int64_t>{1, 3});
  CHECK(same(v.tensor, f32({1, 2, 3, 0, 0, 0, 0, 0}).reshape({2, 4})));
  Value c = call("load", {T(x), L({5, 0}), L({2, 8})}, {{"clamp", B(true)}});
  CHECK(c.valid == std::vector<int64_t>{1, 8});
  CHECK(same(c.tensor[1], at::zeros({8})));
  // A tile past the tensor's end with a valid_shape inside it (the ragged last tile).
  Value r = call("load", {T(x), L({4, 0}), L({4, 8}), L({2, 8})});
  CHECK(r.valid == std::vector<int64_t>{2, 8});
  CHECK(same(r.tensor.narrow(0, 0, 2), x.narrow(0, 4, 2)));
  CHECK_THROWS_WITH_AS(call("load", {T(x), L({4, 0}), L({4, 8}), L({4, 8})}),
                       "pl.load: the read is outside the tensor: axis 0 reads [4:8] (offset 4 + valid_shape 4) but "
                       "the extent is 6 (shape (6, 8)); pass clamp=True to narrow the read to the tensor's end",
                       KernelError);
}

TEST_CASE("store and assemble write the valid region in place and return the target") {
  at::Tensor out = at::zeros({4, 6});
  at::Tensor tile = at::ones({2, 3}) * 5;
  Value r = call("store", {TV(tile, {1, 2}), L({1, 1}), T(out)});
  CHECK(r.tensor.is_same(out));
  at::Tensor want = at::zeros({4, 6});
  want.narrow(0, 1, 1).narrow(1, 1, 2).fill_(5.0f);
  CHECK(same(out, want));
  call("assemble", {T(out), T(tile), L({2, 3})});
  want.narrow(0, 2, 2).narrow(1, 3, 3).fill_(5.0f);
  CHECK(same(out, want));
  call("assemble", {T(out), T(tile), L({2, 3})}, {{"atomic", S("AtomicType.Add")}});
  want.narrow(0, 2, 2).narrow(1, 3, 3).fill_(10.0f);
  CHECK(same(out, want));
  call("store", {T(tile), L({0, 0}), T(out), L({1, 1})}, {{"atomic", S("AtomicType.None_")}});
  CHECK(out[0][0].item<float>() == 5.0f);
  CHECK(out[0][1].item<float>() == 0.0f);
  // A 2-D tile into a 3-D tensor fills the trailing axes.
  at::Tensor cube = at::zeros({2, 2, 3});
  call("assemble", {T(cube), T(tile), L({1, 0, 0})});
  CHECK(same(cube[1], tile));
  CHECK(same(cube[0], at::zeros({2, 3})));
  // ... so its rows go to the second-to-last axis, never to a leading one.
  CHECK_THROWS_WITH_AS(call("assemble", {T(cube), T(tile), L({0, 1, 0})}),
                       "pl.assemble: the write is outside the target: axis 1 gets [1:3] but the extent is 2 (target "
                       "shape (2, 2, 3), source shape (2, 3)); a source of 2 axes fills the target's last 2, as "
                       "PyPTO's tile.store does",
                       KernelError);
  // A source with more axes than the target, its extra leading axes of extent 1 (a batched
  // matmul's [1, M, N] result): they are dropped.
  at::Tensor flat = at::zeros({4, 6});
  call("assemble", {T(flat), TV(at::ones({1, 2, 3}) * 3, {1, 1, 3}), L({2, 3})});
  CHECK(same(flat.narrow(0, 2, 1).narrow(1, 3, 3), at::full({1, 3}, 3.0)));
  CHECK(flat.sum().item<float>() == 9.0f);
  CHECK_THROWS_WITH_AS(call("assemble", {T(flat), T(at::ones({2, 2, 3})), L({0, 0})}),
                       "pl.assemble: the source (2, 2, 3) has more axes than the target (4, 6), and its leading axes "
                       "are not all of extent 1, so it does not fit the target's 2 axes",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("assemble", {T(out), T(tile), L({3, 0})}),
                       "pl.assemble: the write is outside the target: axis 0 gets [3:5] but the extent is 4 (target "
                       "shape (4, 6), source shape (2, 3))",
                       KernelError);
  CHECK_THROWS_WITH_AS(call("store", {T(tile.to(at::kBFloat16)), L({0, 0}), T(out)}),
                       "pl.store: the source is bfloat16 but the target is fp32; convert it with pl.cast first",
                       KernelError);
}

TEST_CASE("atomic adds from concurrent tasks all land") {
  at::Tensor out = at::zeros({8, 8});
  at::Tensor tile = at::ones({8, 8});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 200; ++k) call("assemble", {T(out), T(tile), L({0, 0})}, {{"atomic", S("AtomicType.Add")}});
    });
  for (auto& th : threads) th.join();
  CHECK(same(out, at::full({8, 8}, 800.0)));
}

TEST_CASE("move is the identity") {
  at::Tensor x = at::ones({2});
  CHECK(call("move", {T(x), S("MemorySpace.Left")}).tensor.is_same(x));
}

TEST_CASE("set_validshape is metadata; fillpad fills outside the valid region") {
  at::Tensor x = at::arange(12, at::kFloat).reshape({3, 4});
  Value v = call("set_validshape", {T(x), I(2), I(3)});
  CHECK(v.tensor.is_same(x));
  CHECK(v.valid == std::vector<int64_t>{2, 3});
  CHECK_THROWS_WITH_AS(call("set_validshape", {T(x), I(4), I(1)}),
                       "pl.set_validshape: valid region [4, 1] does not fit the shape (3, 4)", KernelError);
  const float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  Value z = call("fillpad", {v});
  CHECK(z.fully_valid());
  CHECK(same(z.tensor, f32({0, 1, 2, 0, 4, 5, 6, 0, 0, 0, 0, 0}).reshape({3, 4})));
  CHECK(same(call("fillpad", {v, S("PadValue.min")}).tensor,
             f32({0, 1, 2, lo, 4, 5, 6, lo, lo, lo, lo, lo}).reshape({3, 4})));
  CHECK(same(call("fillpad", {v, S("PadValue.max")}).tensor,
             f32({0, 1, 2, hi, 4, 5, 6, hi, hi, hi, hi, hi}).reshape({3, 4})));
  CHECK(same(x, at::arange(12, at::kFloat).reshape({3, 4})));  // the input is untouched
  at::Tensor n = i32({1, 2, 3, 4}).reshape({2, 2});
  CHECK(same(call("fillpad", {TV(n, {1, 1}), S("PadValue.min")}).tensor,
             i32({1, -2147483647 - 1, -2147483647 - 1, -2147483647 - 1}).reshape({2, 2})));
  at::Tensor b = at::ones({1, 2}, at::kBFloat16);
  CHECK(call("fillpad", {TV(b, {1, 1}), S("PadValue.max")}).tensor[0][1].item<float>() ==
        static_cast<float>(std::numeric_limits<c10::BFloat16>::max()));
  CHECK_THROWS_WITH_AS(call("fillpad", {v, F(1.0)}),
                       "pl.fillpad: pad_value must be pl.PadValue.zero / max / min (or 0, math.inf, -math.inf), got "
                       "scalar fp32 1.0",
                       KernelError);
}

TEST_CASE("a write of a partially valid value writes only its valid region") {
  at::Tensor src = at::full({2, 4}, 7.0);
  at::Tensor dst = at::zeros({2, 4});
  CHECK(assign_value(TV(src, {1, 3}), dst) == std::vector<int64_t>{1, 3});  // the corner it wrote
  CHECK(same(dst, f32({7, 7, 7, 0, 0, 0, 0, 0}).reshape({2, 4})));
  at::Tensor small = at::zeros({1, 3});
  CHECK(assign_value(TV(src, {1, 3}), small).empty());  // a window of the valid region's shape: all of it
  CHECK(same(small, at::full({1, 3}, 7.0)));
  CHECK_THROWS_WITH_AS(assign_value(TV(src, {1, 3}), at::zeros({2, 2})),
                       "the value written has shape (2, 4) (valid region (1, 3)) but the window has shape (2, 2)",
                       KernelError);
}

TEST_CASE("a subscript window of a value gets its valid region cut to the window") {
  using namespace pypto_golden::sim;
  auto c = [](int64_t v) { return std::make_unique<ConstExpr>(Value::from_int(v)); };
  std::vector<IndexItem> items(2);
  items[0].lo = c(1);
  items[0].hi = c(3);
  items[1].is_slice = false;
  items[1].index = c(2);
  Frame frame;
  Window w = resolve_window(TV(at::zeros({4, 5, 6}), {2, 5, 4}), items, frame, "x[1:3, 2]");
  CHECK(w.view.sizes().equals({2, 6}));
  CHECK(w.valid == std::vector<int64_t>{1, 4});
  Window full = resolve_window(T(at::zeros({4, 5})), items, frame, "x[1:3, 2]");
  CHECK(full.valid.empty());
}

TEST_CASE("fill_outside pads every element outside the valid corner and keeps the rest, in each layout") {
  // The row-major FP32 path and ATen's slabs (other dtypes, strides, ranks) give the same
  // elements: each one outside [0, valid) on some axis holds the value, as fill_ converts it.
  for (const c10::Scalar& pad : {c10::Scalar(0.0), c10::Scalar(-2.5), c10::Scalar(1e30), c10::Scalar(-0.0)}) {
    for (const std::vector<int64_t>& valid : {std::vector<int64_t>{3, 5}, {0, 5}, {3, 0}, {7, 9}, {6, 9}, {7, 1}}) {
      for (const bool transposed : {false, true}) {
        for (const auto dtype : {at::kFloat, at::kBFloat16}) {
          at::Tensor t = at::arange(63, at::kFloat).reshape({7, 9}).to(dtype);
          if (transposed) t = t.t().contiguous().t();  // same shape, column-major
          const at::Tensor before = t.clone();
          pypto_golden::sim::ops::fill_outside(t, valid, pad);
          const at::Tensor rows = at::arange(7).unsqueeze(1).expand({7, 9});
          const at::Tensor cols = at::arange(9).unsqueeze(0).expand({7, 9});
          const at::Tensor outside = (rows >= valid[0]).logical_or(cols >= valid[1]);
          const at::Tensor want = at::where(outside, at::full({7, 9}, pad, before.options()), before);
          CAPTURE(valid[0]);
          CAPTURE(valid[1]);
          CHECK(at::equal(t.contiguous().view(dtype == at::kFloat ? at::kInt : at::kShort),
                          want.contiguous().view(dtype == at::kFloat ? at::kInt : at::kShort)));
        }
      }
    }
  }
}
