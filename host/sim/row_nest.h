// Calls of FP32 add / sub / mul / div nested in one another, as kernels write them
// (pl.col_expand_add(pl.col_expand_mul(x, gamma), beta)), run together one row at a time
// (sim/ops/fp32_row_tree.h) instead of one whole tile per call.
//
// The nest's operands are evaluated first, left to right as the calls would; an op is joined
// to the row tree only when its operands fit the row loops, where it can raise no error and
// computes exactly what it would alone. Any other op runs as usual at its turn, on its
// operands made into tiles, so every message and every value is the calls' one by one.
#pragma once

#include "sim/nodes.h"

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim {

class CallExpr;

// Whether `call` heads a nest: its op and one of its two arguments' are row-fusable calls
// (OpDef::row_role) without keywords, and no other expression of the nest writes memory (so
// reading a tile later than the calls would have read it sees the same bytes).
bool heads_row_nest(const CallExpr& call);

// The nest headed by `call` evaluated as a value, or into `dst` (as Expr::eval_into).
Value eval_row_nest(const CallExpr& call, Frame& frame);
WrittenCorner eval_row_nest_into(const CallExpr& call, Frame& frame, const at::Tensor& dst);

}  // namespace pypto_golden::sim
