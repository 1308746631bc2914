// topk_pair_compare: the idx output of a top-k op, checked against its paired vals output.
//
// Positions where the actual idx differs from the golden idx are legal iff the *actual* vals
// (as float32) stay monotone across both neighbour pairs of the position along `dim`
// (>= for descending, <= for ascending; ties allowed, NaN breaks the order). Expected vals
// are not consulted — except when k (the length of `dim`) is 1: a position has no neighbours
// then, and a mismatched idx is legal only if the actual value equals the expected value at
// that position (a tie for the top score). The public harness passes every mismatch at k = 1.
#pragma once

#include "validate/gate_common.h"

namespace pypto_golden {

struct TopkPairOptions {
  std::string vals_name;
  int64_t dim = -1;
  bool descending = true;
  int64_t max_show = 10;
};

// expected_vals may be undefined (an undefined at::Tensor); it is needed only when k = 1.
GateResult topk_pair_compare(const at::Tensor& actual_idx, const at::Tensor& expected_idx,
                             const at::Tensor& actual_vals, const at::Tensor& expected_vals,
                             const TopkPairOptions& options);

}  // namespace pypto_golden
