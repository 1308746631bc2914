// mapped_pool_ratio_allclose: a slot-mapped paged pool (KV-cache blocks) where only the rows
// the allocator mapped may change.
//
// Layout [blocks, block_size, ...] or, with leading_rank_axis, [ranks, blocks, block_size,
// ...]; a mapping value is a physical row (block * block_size + slot), -1 = unused. Checks, in
// order, each a failed result: equal shapes; layout; mapping present; integer mapping dtype;
// mapping shape; rank count; values < -1; values >= rows; duplicate rows on one rank. Then
// every unmapped row must equal the golden exactly (NaN never equal), mapped rows must be
// finite (floating pools) and pass ratio_allclose(atol, rtol, max_error_ratio) on the rows
// in (rank, row) order. No copy of the pool is made.
#pragma once

#include "validate/ratio_allclose.h"

namespace pypto_golden {

struct MappedPoolOptions {
  std::string mapping_name;
  std::vector<int64_t> mapping_shape;
  int64_t block_size = 1;
  bool leading_rank_axis = false;
  std::string pool_name = "pool";
  RatioAllcloseOptions ratio;  // atol, rtol, max_error_ratio (max_show 10, no prefix)
};

// `mapping` may be undefined (the input is missing).
GateResult mapped_pool_ratio_allclose(const at::Tensor& actual, const at::Tensor& expected, const at::Tensor& mapping,
                                      const MappedPoolOptions& options);

}  // namespace pypto_golden
