// pl.row_expand_* / pl.col_expand_* arithmetic on 2-D FP32 tiles in one loop. A kernel
// applies them to many small tiles (a row at a time, 16 rows of a block), where ATen's
// broadcasting set-up costs more than the arithmetic; IEEE add, sub, mul and div round the
// same in any loop, so the values are ATen's.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim::ops {

enum class ExpandArith { Add, Sub, Mul, Div };

// out = t OP v, v holding one value per row (`row`: shape [R, 1]) or per column ([1, C]).
// Returns false, writing nothing, unless all three are 2-D FP32 with out and t of one shape
// and rows of unit stride (a column of v too). `out` may be `t` itself.
bool expand_fp32(ExpandArith op, bool row, const at::Tensor& out, const at::Tensor& t, const at::Tensor& v);

}  // namespace pypto_golden::sim::ops
