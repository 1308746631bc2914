// The matmul family. Float operands accumulate in FP32, integer operands in
// INT32, then the result converts to its dtype (out_dtype, else the operands' dtype).
// matmul_acc adds into its FP32 / INT32 accumulator in place and returns it.
#include "sim/kernel_error.h"
#include "sim/ops/direct_gemm.h"
#include "sim/ops/int8_gemm.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "sim/ops/widen_to_fp32.h"
#include "sim/strided_view.h"
#include "tensor/python_repr.h"

#include <dlfcn.h>
#include <omp.h>

#include <mutex>

namespace pypto_golden::sim {
namespace {

using ops::Dest;

struct Operands {
  at::Tensor lhs, rhs;              // after a_trans / b_trans
  std::vector<int64_t> shape;       // result shape
  std::vector<int64_t> valid;       // result valid region (empty = fully valid)
  bool is_float = true;
  const OpArgs* args = nullptr;     // the call's: its temporaries go where ops::new_tensor puts them
};

// PyPTO's rule for a matmul's valid region: the rows of lhs's and the columns of rhs's (after
// a_trans / b_trans); batch axes stay whole.
std::vector<int64_t> product_valid(const Value& lhs_v, bool a_trans, const Value& rhs_v, bool b_trans,
                                   const std::vector<int64_t>& shape) {
  if (lhs_v.fully_valid() && rhs_v.fully_valid()) return {};
  std::vector<int64_t> lv = lhs_v.valid_shape(), rv = rhs_v.valid_shape();
  if (a_trans) std::swap(lv[lv.size() - 1], lv[lv.size() - 2]);
  if (b_trans) std::swap(rv[rv.size() - 1], rv[rv.size() - 2]);
  std::vector<int64_t> valid = shape;
  const size_t n = valid.size();
  if (lv.size() >= 2 && rv.size() >= 2) {
    valid[n - 2] = lv[lv.size() - 2];
    valid[n - 1] = rv.back();
  } else if (lv.size() >= 2) {  // matrix x vector: [M]
    valid[n - 1] = lv[lv.size() - 2];
  } else if (rv.size() >= 2) {  // vector x matrix: [N]
    valid[n - 1] = rv.back();
  }
  return valid == shape ? std::vector<int64_t>{} : valid;
}

Operands prepare(const OpArgs& a, const Value& lhs_v, const Value& rhs_v) {
  const at::Tensor& lhs = a.as_tensor(lhs_v, "lhs").tensor;
  const at::Tensor& rhs = a.as_tensor(rhs_v, "rhs").tensor;
  ops::check_same_dtype(a.op, lhs, "lhs", rhs, "rhs");
  if (lhs.scalar_type() == at::kBool) throw KernelError(std::string("pl.") + a.op + ": operands must not be bool");
  const Value* at_v = a.option("a_trans");
  const Value* bt_v = a.option("b_trans");
  const bool a_trans = at_v && a.as_bool(*at_v, "a_trans");
  const bool b_trans = bt_v && a.as_bool(*bt_v, "b_trans");
  if (lhs.dim() < 1 || rhs.dim() < 1)
    throw KernelError(std::string("pl.") + a.op + ": operands must have rank >= 1, got " +
                      python_shape_repr(lhs.sizes()) + " and " + python_shape_repr(rhs.sizes()));
  if (a_trans && lhs.dim() < 2) throw KernelError(std::string("pl.") + a.op + ": a_trans needs lhs of rank >= 2");
  if (b_trans && rhs.dim() < 2) throw KernelError(std::string("pl.") + a.op + ": b_trans needs rhs of rank >= 2");
  Operands o;
  o.lhs = a_trans ? transposed_view(lhs, -2, -1) : lhs;
  o.rhs = b_trans ? transposed_view(rhs, -2, -1) : rhs;
  o.is_float = at::isFloatingType(lhs.scalar_type());
  o.args = &a;
  const int64_t k_l = o.lhs.size(-1);
  const int64_t k_r = o.rhs.dim() == 1 ? o.rhs.size(0) : o.rhs.size(-2);
  if (k_l != k_r)
    throw KernelError(std::string("pl.") + a.op + ": inner dimensions differ: lhs " + python_shape_repr(lhs.sizes()) +
                      (a_trans ? " (a_trans)" : "") + " and rhs " + python_shape_repr(rhs.sizes()) +
                      (b_trans ? " (b_trans)" : "") + " give K = " + std::to_string(k_l) + " vs " +
                      std::to_string(k_r));
  // numpy matmul rules: 1-D operands lose their axis, leading (batch) axes broadcast.
  const at::Tensor& L = o.lhs;
  const at::Tensor& R = o.rhs;
  std::vector<int64_t> lb = L.dim() > 2 ? L.sizes().slice(0, L.dim() - 2).vec() : std::vector<int64_t>{};
  std::vector<int64_t> rb = R.dim() > 2 ? R.sizes().slice(0, R.dim() - 2).vec() : std::vector<int64_t>{};
  try {
    o.shape = at::infer_size(lb, rb);
  } catch (const c10::Error&) {
    throw KernelError(std::string("pl.") + a.op + ": batch dimensions of " + python_shape_repr(L.sizes()) + " and " +
                      python_shape_repr(R.sizes()) + " do not broadcast");
  }
  if (L.dim() >= 2) o.shape.push_back(L.size(-2));
  if (R.dim() >= 2) o.shape.push_back(R.size(-1));
  o.valid = product_valid(lhs_v, a_trans, rhs_v, b_trans, o.shape);
  return o;
}

// OpenBLAS (pthread build) keeps one process-wide thread count: two device workers that
// each call a multi-threaded gemm queue up on the same BLAS helper threads and spin against
// each other. Workers run ATen with one OpenMP thread (their tasks are the parallelism), so
// while any of them is inside a gemm the BLAS thread count is 1; the caller's count is
// restored when the last one leaves. A no-op for other BLAS libraries.
class SingleThreadBlas {
 public:
  SingleThreadBlas() : active_(omp_get_max_threads() == 1 && api().set != nullptr) {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(api().mu);
    if (api().users++ == 0) {
      api().saved = api().get();
      if (api().saved != 1) api().set(1);
    }
  }
  ~SingleThreadBlas() {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(api().mu);
    if (--api().users == 0 && api().saved != 1) api().set(api().saved);
  }
  SingleThreadBlas(const SingleThreadBlas&) = delete;
  SingleThreadBlas& operator=(const SingleThreadBlas&) = delete;

 private:
  struct Api {
    void (*set)(int) = nullptr;
    int (*get)() = nullptr;
    std::mutex mu;
    int users = 0;
    int saved = 1;
  };
  static Api& api() {
    static Api a;
    static std::once_flag once;
    std::call_once(once, [] {
      a.set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
      a.get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
      if (!a.get) a.set = nullptr;
    });
    return a;
  }
  bool active_;
};

// A float operand as FP32. A transposed window (a_trans / b_trans of a tile of a larger
// tensor) converts in its stored order and is transposed back as a view: converting the
// transposed view itself gathers element by element, and gemm takes either layout. The
// copy is made in the device's caching pool (ops::new_tensor): a large one from ATen's
// allocator is fresh pages every time (a BF16 weight converted per task spent most of a
// model kernel's runtime zeroing pages).
at::Tensor as_fp32(const at::Tensor& t, const OpArgs& a) {
  if (t.scalar_type() == at::kFloat) return t;
  if (t.dim() >= 2 && t.stride(-2) == 1 && t.stride(-1) != 1)
    return transposed_view(as_fp32(transposed_view(t, -2, -1), a), -2, -1);
  at::Tensor f = ops::new_tensor(a, t.sizes(), at::kFloat);
  ops::copy_widening(t, f);
  return f;
}

// The INT32 product of integer operands. INT8 ones go to the integer gemm where it is exact
// (int8_gemm.h). Otherwise: an int8 / uint8 product is an integer of magnitude at most 2^14 (int8) or
// 255^2 (uint8), so over a chunk of K of 2^24 / that bound every partial sum is an
// integer FP32 holds exactly, whatever order gemm sums in: sgemm per chunk, summed in
// INT32, is the exact product (and with K <= 131072 the sum does not overflow INT32), ~3x
// faster than the same in FP64. Wider integers go through int64 and wrap to INT32 like the
// hardware accumulator.
at::Tensor integer_product(const Operands& o) {
  if (std::optional<at::Tensor> exact = ops::int8_gemm(o.lhs, o.rhs)) return *std::move(exact);
  at::Tensor prod;
  const int64_t k = o.lhs.size(-1);
  const auto st = o.lhs.scalar_type();
  if ((st == at::kChar || st == at::kByte) && k <= 131072) {
    const int64_t max_abs = st == at::kByte ? 255 : 128;
    const int64_t chunk = (int64_t(1) << 24) / (max_abs * max_abs);
    for (int64_t s = 0; s < k; s += chunk) {
      const int64_t len = std::min(chunk, k - s);
      at::Tensor l = as_fp32(o.lhs.narrow(-1, s, len), *o.args);
      at::Tensor r = as_fp32(o.rhs.narrow(o.rhs.dim() == 1 ? 0 : -2, s, len), *o.args);
      at::Tensor part = at::matmul(l, r).to(at::kInt);
      if (prod.defined()) prod.add_(part);
      else prod = std::move(part);
    }
    if (!prod.defined()) prod = at::zeros(o.shape, o.lhs.options().dtype(at::kInt));  // K = 0
    return prod;
  }
  return at::matmul(o.lhs.to(at::kLong), o.rhs.to(at::kLong)).to(at::kInt);
}

// lhs @ rhs with FP32 (float operands) or INT32 (integer operands) accumulation, written
// into `acc_out` (FP32 / INT32, result shape). `accumulate` adds to it instead.
void product_into(const Operands& o, at::Tensor& acc_out, bool accumulate) {
  SingleThreadBlas single_thread;
  const bool two_d = o.lhs.dim() == 2 && o.rhs.dim() == 2;
  if (o.is_float) {
    if (ops::direct_bf16_gemm(o.lhs, o.rhs, acc_out, accumulate)) return;
    at::Tensor l = as_fp32(o.lhs, *o.args);
    at::Tensor r = as_fp32(o.rhs, *o.args);
    if (ops::direct_sgemm(l, r, acc_out, accumulate)) return;
    if (two_d) {
      if (accumulate) at::addmm_out(acc_out, acc_out, l, r);
      else at::mm_out(acc_out, l, r);
    } else if (accumulate) {
      acc_out.add_(at::matmul(l, r));
    } else {
      at::matmul_out(acc_out, l, r);
    }
    return;
  }
  const at::Tensor prod = integer_product(o);
  if (accumulate) acc_out.add_(prod);
  else acc_out.copy_(prod);
}

Value matmul(const OpArgs& a, Dest& d) {
  Operands o = prepare(a, a.required(0, "lhs"), a.required(1, "rhs"));
  c10::ScalarType out_dtype = o.lhs.scalar_type();
  if (const Value* v = a.option("out_dtype")) out_dtype = a.as_dtype(*v, "out_dtype");
  const c10::ScalarType acc_dtype = o.is_float ? at::kFloat : at::kInt;
  at::Tensor out = d.out(o.shape, out_dtype, {o.lhs, o.rhs}, false, o.valid.empty());
  if (out_dtype == acc_dtype) {
    product_into(o, out, false);
  } else {
    at::Tensor acc = ops::new_tensor(a, o.shape, acc_dtype);
    product_into(o, acc, false);
    out.copy_(acc);  // FP32 -> BF16/FP16 rounds to nearest even; INT32 -> FP32 likewise
  }
  return Value::from_tensor(out, std::move(o.valid));
}

Value matmul_acc(const OpArgs& a) {
  const Value& acc_v = a.tensor(0, "acc");
  Operands o = prepare(a, a.required(1, "lhs"), a.required(2, "rhs"));
  at::Tensor acc = acc_v.tensor;
  const c10::ScalarType want = o.is_float ? at::kFloat : at::kInt;
  if (acc.scalar_type() != want)
    throw KernelError(std::string("pl.matmul_acc: the accumulator must be ") + (o.is_float ? "fp32" : "int32") +
                      " for " + ops::dtype_str(o.lhs.scalar_type()) + " operands, got " +
                      ops::dtype_str(acc.scalar_type()) +
                      (o.is_float ? " (start it with pl.matmul(..., out_dtype=pl.FP32))" : ""));
  if (!acc.sizes().equals(o.shape))
    throw KernelError("pl.matmul_acc: the accumulator has shape " + python_shape_repr(acc.sizes()) +
                      " but lhs @ rhs has shape " + python_shape_repr(o.shape));
  for (const at::Tensor* in : {&o.lhs, &o.rhs})
    if (ops::shares_memory(acc, *in))
      throw KernelError("pl.matmul_acc: the accumulator shares memory with an operand");
  bool init = false;
  if (const Value* c = a.option("init_cond")) init = c->truthy("pl.matmul_acc's init_cond");
  product_into(o, acc, !init);
  return acc_v;
}

}  // namespace

void register_matmul_ops(OpTable& t) {
  t.add(fresh_result(ops::op_def<matmul>("matmul", 2, 2, {"out_dtype", "a_trans", "b_trans", "c_matrix_nz"})));
  t.add(fresh_result(OpDef{"matmul_acc", 3, 3, {"a_trans", "b_trans", "init_cond"}, &ops::guarded<matmul_acc>, nullptr, 0}, 1u << 0));
}

}  // namespace pypto_golden::sim
