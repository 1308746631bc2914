// Nested FP32 add / sub / mul / div calls evaluated one row at a time:
// pl.col_expand_add(pl.col_expand_mul(x, gamma), beta) or pl.mul(pl.mul(c, c), k) make no
// intermediate tile, and pass over the data once instead of once per call. Every node
// rounds its row exactly as its op alone rounds its tile (the row loops of fp32_arith.h,
// IEEE float operations one at a time), so the values are those of the calls one by one.
#pragma once

#include "sim/ops/fp32_arith.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace pypto_golden::sim::ops {

// How an op combines its first operand, an [R, C] tile, with its second: element by element
// (a tile of the same shape, or a scalar), with one value per row ([R, 1]: row_expand_*) or
// one per column ([1, C]: col_expand_*). None: the op is not one of these.
enum class RowRole : uint8_t { None, Elementwise, PerRow, PerCol };

// An operand of a node: an earlier node's result, a tile, or a scalar.
struct RowOperand {
  static RowOperand of_node(int n);
  static RowOperand of_tile(at::Tensor t);
  static RowOperand of_scalar(float s);

  int node = -1;
  at::Tensor tile;
  float scalar = 0.0f;
};

class Fp32RowTree {
 public:
  // Adds the node lhs OP rhs (rhs in `role`), returning its index; -1, adding nothing, when
  // an operand does not fit: every tile FP32 and 2-D with rows of unit stride, the lhs and
  // the nodes all of one shape [R, C] (fixed by the first node), R * C within the row loops'
  // limit, a scalar only as an Elementwise rhs.
  int add(Fp32Arith op, RowRole role, RowOperand lhs, RowOperand rhs);
  size_t size() const { return nodes_.size(); }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  // Whether node n's result may be written straight into `out` ([R, C] FP32, rows of unit
  // stride): no tile of its subtree shares memory with it, but its leftmost tile (read first,
  // row by row) may be `out` itself when no other tile shares memory with it.
  bool may_write(int n, const at::Tensor& out) const;
  // Writes node n's result into `out` (may_write(n, out) holds).
  void run(int n, const at::Tensor& out) const;

 private:
  struct Node {
    Fp32RowLoop loop;
    RowRole role;
    RowOperand lhs, rhs;
    // The tiles' data and row strides, read once (null for a node or a scalar).
    const float* lhs_data = nullptr;
    const float* rhs_data = nullptr;
    int64_t lhs_stride = 0, rhs_stride = 0;
  };
  bool fits(const RowOperand& o, RowRole role) const;
  void run_row(const Node& node, int64_t i, float* o, float* scratch) const;
  void tiles_of(int n, std::vector<const at::Tensor*>& out) const;

  std::vector<Node> nodes_;
  int64_t rows_ = -1, cols_ = -1;
};

}  // namespace pypto_golden::sim::ops
