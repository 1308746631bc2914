#include "sim/ops/fp32_arith.h"

#include "sim/strided_view.h"

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

namespace pypto_golden::sim::ops {
namespace {

template <Fp32Arith OP>
inline float apply(float a, float b) {
  switch (OP) {
    case Fp32Arith::Add: return a + b;
    case Fp32Arith::Sub: return a - b;
    case Fp32Arith::Mul: return a * b;
    case Fp32Arith::Div: return a / b;
  }
  return 0.0f;
}

template <Fp32Arith OP>
__attribute__((target("avx2"))) inline __m256 apply8(__m256 a, __m256 b) {
  switch (OP) {
    case Fp32Arith::Add: return _mm256_add_ps(a, b);
    case Fp32Arith::Sub: return _mm256_sub_ps(a, b);
    case Fp32Arith::Mul: return _mm256_mul_ps(a, b);
    case Fp32Arith::Div: return _mm256_div_ps(a, b);
  }
  return a;
}

// One row: o[j] = a[j] OP (per-row scalar s, or b[j] when b is not null). Each group of
// elements is read before it is written, so o may be a.
template <Fp32Arith OP>
void row_scalar(float* o, const float* a, const float* b, float s, int64_t n) {
  for (int64_t j = 0; j < n; ++j) o[j] = apply<OP>(a[j], b ? b[j] : s);
}

// Two groups of eight a step, both read before either is written (o may be a or b): the
// loop of a row is short, and its per-step overhead showed next to the arithmetic.
template <Fp32Arith OP>
__attribute__((target("avx2"))) void row_avx2(float* o, const float* a, const float* b, float s, int64_t n) {
  int64_t j = 0;
  if (b != nullptr) {
    for (; j + 16 <= n; j += 16) {
      const __m256 x0 = apply8<OP>(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j));
      const __m256 x1 = apply8<OP>(_mm256_loadu_ps(a + j + 8), _mm256_loadu_ps(b + j + 8));
      _mm256_storeu_ps(o + j, x0);
      _mm256_storeu_ps(o + j + 8, x1);
    }
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(o + j, apply8<OP>(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j)));
    for (; j < n; ++j) o[j] = apply<OP>(a[j], b[j]);
    return;
  }
  const __m256 bs = _mm256_set1_ps(s);
  for (; j + 16 <= n; j += 16) {
    const __m256 x0 = apply8<OP>(_mm256_loadu_ps(a + j), bs);
    const __m256 x1 = apply8<OP>(_mm256_loadu_ps(a + j + 8), bs);
    _mm256_storeu_ps(o + j, x0);
    _mm256_storeu_ps(o + j + 8, x1);
  }
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(o + j, apply8<OP>(_mm256_loadu_ps(a + j), bs));
  for (; j < n; ++j) o[j] = apply<OP>(a[j], s);
}

// max(a[j], s) / min(a[j], s) as ATen's clamp_min / clamp_max: its vector loop takes
// MAXPS / MINPS with the bound first, which return the second operand (the element) when
// either is NaN or both are zeros; its scalar loop (std::max / std::min) does the same.
template <bool MAX>
inline float clamp1(float a, float s) {
  return MAX ? (a < s ? s : a) : (s < a ? s : a);
}

template <bool MAX>
void clamp_row_scalar(float* o, const float* a, float s, int64_t n) {
  for (int64_t j = 0; j < n; ++j) o[j] = clamp1<MAX>(a[j], s);
}

template <bool MAX>
__attribute__((target("avx2"))) void clamp_row_avx2(float* o, const float* a, float s, int64_t n) {
  const __m256 bs = _mm256_set1_ps(s);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 x = _mm256_loadu_ps(a + j);
    _mm256_storeu_ps(o + j, MAX ? _mm256_max_ps(bs, x) : _mm256_min_ps(bs, x));
  }
  for (; j < n; ++j) o[j] = clamp1<MAX>(a[j], s);
}

// The right operand of a row loop, row i: one value (`per_row`: p[i * row_stride], else the
// scalar s when p is null) or a row of elements at p + i * row_stride (a stride of 0
// repeats one row: col_expand).
struct RightOperand {
  const float* p = nullptr;
  int64_t row_stride = 0;
  bool per_row = false;
  float s = 0.0f;
};

template <Fp32Arith OP>
Fp32RowLoop loop_of() {
  static const Fp32RowLoop line = __builtin_cpu_supports("avx2") ? &row_avx2<OP> : &row_scalar<OP>;
  return line;
}

// Calls f(i, out's row i, t's row i, row length) for each row of a 1-D (one row) or 2-D t.
template <typename F>
void for_each_row(const at::Tensor& out, const at::Tensor& t, F&& f) {
  float* o = out.mutable_data_ptr<float>();
  const float* a = t.const_data_ptr<float>();
  const bool one_row = t.dim() == 1;
  const int64_t rows = one_row ? 1 : t.size(0), cols = one_row ? t.numel() : t.size(1);
  const int64_t o_stride = one_row ? 0 : out.stride(0), a_stride = one_row ? 0 : t.stride(0);
  for (int64_t i = 0; i < rows; ++i) f(i, o + i * o_stride, a + i * a_stride, cols);
}

// out = t OP b over the rows of a 1-D (one row) or 2-D t.
template <Fp32Arith OP>
void run_rows(const at::Tensor& out, const at::Tensor& t, RightOperand b) {
  const Fp32RowLoop line = loop_of<OP>();
  for_each_row(out, t, [&](int64_t i, float* o, const float* a, int64_t cols) {
    const float* bi = b.p && !b.per_row ? b.p + i * b.row_stride : nullptr;
    line(o, a, bi, b.per_row ? b.p[i * b.row_stride] : b.s, cols);
  });
}

// A 1-D tensor of unit stride, or a 2-D one whose rows are; FP32, shaped like `like`.
bool takes(const at::Tensor& x, const at::Tensor& like) {
  if (x.scalar_type() != at::kFloat || !x.sizes().equals(like.sizes())) return false;
  return x.dim() == 1 ? x.numel() <= 1 || x.stride(0) == 1 : x.dim() == 2 && fp32_unit_rows(x);
}

// `out` is `x` itself, or shares no storage with it: a row loop may then write as it reads.
bool in_place_or_apart(const at::Tensor& out, const at::Tensor& x) {
  if (!out.storage().is_alias_of(x.storage())) return true;
  return same_view(out, x);
}

// Calls f with the op as a compile-time constant (std::integral_constant).
template <typename F>
void with_op(Fp32Arith op, F&& f) {
  using C = Fp32Arith;
  switch (op) {
    case C::Add: f(std::integral_constant<C, C::Add>{}); break;
    case C::Sub: f(std::integral_constant<C, C::Sub>{}); break;
    case C::Mul: f(std::integral_constant<C, C::Mul>{}); break;
    case C::Div: f(std::integral_constant<C, C::Div>{}); break;
  }
}

}  // namespace

Fp32RowLoop fp32_row_loop(Fp32Arith op) {
  Fp32RowLoop line = nullptr;
  with_op(op, [&](auto c) { line = loop_of<decltype(c)::value>(); });
  return line;
}

bool expand_fp32(Fp32Arith op, bool row, const at::Tensor& out, const at::Tensor& t, const at::Tensor& v) {
  if (t.dim() != 2 || v.dim() != 2 || out.dim() != 2 || t.scalar_type() != at::kFloat ||
      v.scalar_type() != at::kFloat || out.scalar_type() != at::kFloat || !out.sizes().equals(t.sizes()) ||
      t.numel() == 0 || t.numel() > kFp32RowLoopMaxElements || !fp32_unit_rows(t) || !fp32_unit_rows(out))
    return false;
  if (row ? v.size(0) != t.size(0) || v.size(1) != 1 : v.size(0) != 1 || v.size(1) != t.size(1) || !fp32_unit_rows(v))
    return false;
  RightOperand b;
  b.p = v.const_data_ptr<float>();
  b.per_row = row;
  b.row_stride = row ? v.stride(0) : 0;
  with_op(op, [&](auto c) { run_rows<decltype(c)::value>(out, t, b); });
  return true;
}

bool clamp_fp32(bool max, const at::Tensor& out, const at::Tensor& t, float s) {
  if (t.numel() == 0 || t.numel() > kFp32RowLoopMaxElements || !takes(t, t) || !takes(out, t) || !in_place_or_apart(out, t))
    return false;
  using Loop = void (*)(float*, const float*, float, int64_t);
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const Loop line = max ? (avx2 ? &clamp_row_avx2<true> : &clamp_row_scalar<true>)
                        : (avx2 ? &clamp_row_avx2<false> : &clamp_row_scalar<false>);
  for_each_row(out, t, [&](int64_t, float* o, const float* a, int64_t cols) { line(o, a, s, cols); });
  return true;
}

bool binary_fp32(Fp32Arith op, const at::Tensor& out, const at::Tensor& t, const at::Tensor* u, float s) {
  if (t.numel() == 0 || t.numel() > kFp32RowLoopMaxElements || !takes(t, t) || !takes(out, t) || (u && !takes(*u, t)) ||
      !in_place_or_apart(out, t) || (u && !in_place_or_apart(out, *u)))
    return false;
  RightOperand b;
  b.s = s;
  if (u != nullptr) {
    b.p = u->const_data_ptr<float>();
    b.row_stride = u->dim() == 1 ? 0 : u->stride(0);
  }
  with_op(op, [&](auto c) { run_rows<decltype(c)::value>(out, t, b); });
  return true;
}

}  // namespace pypto_golden::sim::ops
