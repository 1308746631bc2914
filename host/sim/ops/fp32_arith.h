// Add, sub, mul and div of FP32 tiles in one loop per row: pl.row_expand_* / pl.col_expand_*
// and pl.add / sub / mul / div with a tensor or a scalar. A kernel applies them to many small
// tiles (a row at a time, 16 rows of a block), where ATen's broadcasting and TensorIterator
// set-up costs more than the arithmetic; IEEE add, sub, mul and div round the same in any
// loop, so the values are ATen's.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim::ops {

enum class Fp32Arith { Add, Sub, Mul, Div };

// The Fp32Arith of member OP of an op enum that names Add, Sub and Mul (any other member: Div).
template <typename E, E OP>
constexpr Fp32Arith fp32_arith_of() {
  return OP == E::Add ? Fp32Arith::Add : OP == E::Sub ? Fp32Arith::Sub : OP == E::Mul ? Fp32Arith::Mul : Fp32Arith::Div;
}

// out = t OP v, v holding one value per row (`row`: shape [R, 1]) or per column ([1, C]).
// Returns false, writing nothing, unless all three are 2-D FP32 with out and t of one shape
// and rows of unit stride (a column of v too). `out` may be `t` itself.
bool expand_fp32(Fp32Arith op, bool row, const at::Tensor& out, const at::Tensor& t, const at::Tensor& v);

// out = t OP u elementwise, or t OP s when `u` is null. Returns false, writing nothing,
// unless all are FP32 of one shape, 1-D or 2-D with rows of unit stride, and `out` either
// shares no storage with an operand or is exactly that operand (in place).
bool binary_fp32(Fp32Arith op, const at::Tensor& out, const at::Tensor& t, const at::Tensor* u, float s);

// out = max(t, s) (`max`) or min(t, s) elementwise, as ATen's clamp_min / clamp_max kernels
// with a scalar compute it: t's element unless it compares below (above) s, so a NaN element
// or a zero of either sign stays as it is (s is not NaN: ATen's op fills the result with a
// NaN bound before any kernel). Same layout conditions as binary_fp32; false, writing
// nothing, otherwise.
bool clamp_fp32(bool max, const at::Tensor& out, const at::Tensor& t, float s);

// The loop of one row: o[j] = a[j] OP (b ? b[j] : s) for j < n, reading each group of
// elements before writing it (o may be a). The loop of the ops above, AVX2 where the CPU has it.
using Fp32RowLoop = void (*)(float* o, const float* a, const float* b, float s, int64_t n);
Fp32RowLoop fp32_row_loop(Fp32Arith op);

// Whether the rows of a 2-D tensor have unit stride (or one column): the layout the row
// loops read and write.
inline bool fp32_unit_rows(const at::Tensor& t) { return t.size(1) <= 1 || t.stride(1) == 1; }

// The most elements of a tile the row loops take: past it ATen's loop (which may use more
// threads) is as good.
constexpr int64_t kFp32RowLoopMaxElements = int64_t{1} << 18;

}  // namespace pypto_golden::sim::ops
