#include "sim/ops/direct_sgemm.h"

#include <algorithm>
#include <climits>
#include <optional>

// BLAS's Fortran sgemm, exported by the torch library (its MKL or OpenBLAS). Weak: a torch
// built without BLAS leaves it null and every product goes through ATen.
extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc) __attribute__((weak));

namespace pypto_golden::sim::ops {
namespace {

// An R x C row-major matrix (a 2-D window: strides s0, s1) read as the column-major C x R
// matrix BLAS sees in its memory: as it is when its rows are dense (s1 == 1), transposed when
// its columns are; any other layout is one ATen would copy before its gemm.
struct ColumnMajor {
  const float* data;
  bool trans;
  int64_t ld;
};

std::optional<ColumnMajor> column_major(const at::Tensor& t, int64_t rows, int64_t cols) {
  const float* p = t.const_data_ptr<float>();
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

}  // namespace

bool direct_sgemm(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, bool accumulate) {
  if (sgemm_ == nullptr) return false;
  if (a.scalar_type() != at::kFloat || b.scalar_type() != at::kFloat || c.scalar_type() != at::kFloat) return false;
  if (a.dim() < 2 || b.dim() < 2 || !unit_batch(a) || !unit_batch(b) || !c.is_contiguous()) return false;
  // One operand batched at most: ATen folds that into one mm; two batched go through bmm,
  // which sums small products in its own loop.
  if (a.dim() > 2 && b.dim() > 2) return false;
  const bool batched = a.dim() > 2 || b.dim() > 2;
  // matmul_acc's batched form adds a separate product (acc += a @ b), not an addmm.
  if (accumulate && batched) return false;
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  if (b.size(-2) != k || c.dim() != std::max(a.dim(), b.dim()) || c.size(-2) != m || c.size(-1) != n) return false;
  // A batched form goes through ATen's bmm when ATen does not fold it, which sums products
  // under 400 multiply-adds in its own loop, and a batched single row is copied first.
  if (batched && (m * n * k < 400 || m == 1)) return false;
  // With N = 1 ATen keeps C's orientation, and K = 1 changes its leading dimensions: neither
  // is worth a second layout rule. M = 1 (a row times a matrix) is the common decode form.
  if (n == 1 || k == 1) return false;
  // Row-major C [M, N] is the column-major N x M matrix C^T = B^T A^T: BLAS's A is our b.
  const auto ba = column_major(b, k, n);
  const auto bb = column_major(a, m, k);
  if (!ba || !bb || !fits_int({m, n, k, ba->ld, bb->ld})) return false;
  const int im = static_cast<int>(n), in = static_cast<int>(m), ik = static_cast<int>(k);
  // A single row of A is one column of BLAS's B: its leading dimension is then K, as ATen
  // passes it (BLAS reads no second column).
  const int lda = static_cast<int>(ba->ld), ldc = static_cast<int>(n);
  const int ldb = static_cast<int>(m == 1 && !bb->trans ? k : bb->ld);
  const char ta = ba->trans ? 't' : 'n', tb = bb->trans ? 't' : 'n';
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  sgemm_(&ta, &tb, &im, &in, &ik, &alpha, ba->data, &lda, bb->data, &ldb, &beta, c.mutable_data_ptr<float>(), &ldc);
  return true;
}

}  // namespace pypto_golden::sim::ops
