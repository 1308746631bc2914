#include "sim/ops/direct_gemm.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <optional>

// BLAS's Fortran sgemm and MKL's BF16 gemm (its Fortran form: the same arguments, BF16
// operands as 16-bit words), exported by the torch library (MKL or OpenBLAS). Weak: a torch
// built without them leaves them null and every product goes through ATen.
extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc) __attribute__((weak));
extern "C" void gemm_bf16bf16f32(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                 const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b,
                                 const int* ldb, const float* beta, float* c, const int* ldc) __attribute__((weak));

namespace pypto_golden::sim::ops {
namespace {

// An R x C row-major matrix (a 2-D window: strides s0, s1) read as the column-major C x R
// matrix BLAS sees in its memory: as it is when its rows are dense (s1 == 1), transposed when
// its columns are; any other layout is one ATen would copy before its gemm.
struct ColumnMajor {
  const void* data;
  bool trans;
  int64_t ld;
};

std::optional<ColumnMajor> column_major(const at::Tensor& t, int64_t rows, int64_t cols) {
  const void* p = t.const_data_ptr();
  const int64_t s0 = t.stride(-2), s1 = t.stride(-1);
  if (s1 == 1 && s0 >= std::max<int64_t>(1, cols)) return ColumnMajor{p, false, s0};
  if (s0 == 1 && s1 >= std::max<int64_t>(1, rows)) return ColumnMajor{p, true, s1};
  return std::nullopt;
}

bool unit_batch(const at::Tensor& t) {
  for (int64_t d = 0; d + 2 < t.dim(); ++d)
    if (t.size(d) != 1) return false;
  return true;
}

bool fits_int(std::initializer_list<int64_t> v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x >= 1 && x <= INT_MAX; });
}

// One column-major gemm call's arguments: C^T = B^T A^T.
struct GemmCall {
  char ta, tb;
  int m, n, k, lda, ldb, ldc;
  const void* a;
  const void* b;
  float beta;
};

// The call for c (=|+=) a @ b with operands of `dtype` and an FP32 c, or none (see direct_sgemm).
std::optional<GemmCall> plan(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, bool accumulate,
                             c10::ScalarType dtype) {
  if (a.scalar_type() != dtype || b.scalar_type() != dtype || c.scalar_type() != at::kFloat) return std::nullopt;
  if (a.dim() < 2 || b.dim() < 2 || !unit_batch(a) || !unit_batch(b) || !c.is_contiguous()) return std::nullopt;
  // One operand batched at most: ATen folds that into one mm; two batched go through bmm,
  // which sums small products in its own loop.
  if (a.dim() > 2 && b.dim() > 2) return std::nullopt;
  const bool batched = a.dim() > 2 || b.dim() > 2;
  // matmul_acc's batched form adds a separate product (acc += a @ b), not an addmm.
  if (accumulate && batched) return std::nullopt;
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  if (b.size(-2) != k || c.dim() != std::max(a.dim(), b.dim()) || c.size(-2) != m || c.size(-1) != n)
    return std::nullopt;
  // A batched form goes through ATen's bmm when ATen does not fold it, which sums products
  // under 400 multiply-adds in its own loop, and a batched single row is copied first.
  if (batched && (m * n * k < 400 || m == 1)) return std::nullopt;
  // With N = 1 ATen keeps C's orientation, and K = 1 changes its leading dimensions: neither
  // is worth a second layout rule. M = 1 (a row times a matrix) is the common decode form.
  if (n == 1 || k == 1) return std::nullopt;
  // Row-major C [M, N] is the column-major N x M matrix C^T = B^T A^T: BLAS's A is our b.
  const auto ba = column_major(b, k, n);
  const auto bb = column_major(a, m, k);
  if (!ba || !bb || !fits_int({m, n, k, ba->ld, bb->ld})) return std::nullopt;
  GemmCall call;
  call.ta = ba->trans ? 't' : 'n';
  call.tb = bb->trans ? 't' : 'n';
  call.m = static_cast<int>(n);
  call.n = static_cast<int>(m);
  call.k = static_cast<int>(k);
  // A single row of A is one column of BLAS's B: its leading dimension is then K, as ATen
  // passes it (BLAS reads no second column).
  call.lda = static_cast<int>(ba->ld);
  call.ldb = static_cast<int>(m == 1 && !bb->trans ? k : bb->ld);
  call.ldc = static_cast<int>(n);
  call.a = ba->data;
  call.b = bb->data;
  call.beta = accumulate ? 1.0f : 0.0f;
  return call;
}

constexpr float kOne = 1.0f;

void run_bf16(const GemmCall& g, float* c) {
  gemm_bf16bf16f32(&g.ta, &g.tb, &g.m, &g.n, &g.k, &kOne, static_cast<const uint16_t*>(g.a), &g.lda,
                   static_cast<const uint16_t*>(g.b), &g.ldb, &g.beta, c, &g.ldc);
}

std::atomic<bool> bf16_disabled{false};

// A product whose every sum is exact in FP32 (small integers), in both layouts of each
// operand: a library whose entry point takes other arguments than declared gives other bits.
bool bf16_probe_matches() {
  const at::Tensor a = (at::arange(35, at::kFloat).remainder(7) - 3).reshape({5, 7});
  const at::Tensor b = (at::arange(28, at::kFloat).remainder(5) - 2).reshape({7, 4});
  const at::Tensor want = at::mm(a, b);
  const at::Tensor ab = a.to(at::kBFloat16), bb = b.to(at::kBFloat16);
  const at::Tensor at_ = ab.t().contiguous().t(), bt = bb.t().contiguous().t();
  for (const at::Tensor* l : {&ab, &at_})
    for (const at::Tensor* r : {&bb, &bt}) {
      at::Tensor c = at::full({5, 4}, 1.0f);
      const auto g = plan(*l, *r, c, true, at::kBFloat16);
      if (!g) return false;
      run_bf16(*g, c.mutable_data_ptr<float>());
      if (!at::equal(c, want + 1)) return false;
    }
  return true;
}

}  // namespace

bool direct_sgemm(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, bool accumulate) {
  if (sgemm_ == nullptr) return false;
  const auto g = plan(a, b, c, accumulate, at::kFloat);
  if (!g) return false;
  sgemm_(&g->ta, &g->tb, &g->m, &g->n, &g->k, &kOne, static_cast<const float*>(g->a), &g->lda,
         static_cast<const float*>(g->b), &g->ldb, &g->beta, c.mutable_data_ptr<float>(), &g->ldc);
  return true;
}

bool bf16_gemm_usable() {
  static const bool usable = [] {
    if (gemm_bf16bf16f32 == nullptr) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") && bf16_probe_matches();
  }();
  return usable;
}

bool direct_bf16_gemm(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, bool accumulate) {
  // The plan first: every float product asks, and one that is no BF16 gemm (FP32 operands)
  // must not run the probe inside a kernel that has none.
  const auto g = plan(a, b, c, accumulate, at::kBFloat16);
  if (!g || bf16_disabled.load(std::memory_order_relaxed) || !bf16_gemm_usable()) return false;
  run_bf16(*g, c.mutable_data_ptr<float>());
  return true;
}

void disable_bf16_gemm_for_tests(bool disabled) { bf16_disabled = disabled; }

}  // namespace pypto_golden::sim::ops
