#include "sim/ops/fp32_row_tree.h"

#include "sim/hot_thread_local.h"
#include "sim/strided_view.h"

namespace pypto_golden::sim::ops {

RowOperand RowOperand::of_node(int n) {
  RowOperand o;
  o.node = n;
  return o;
}

RowOperand RowOperand::of_tile(at::Tensor t) {
  RowOperand o;
  o.tile = std::move(t);
  return o;
}

RowOperand RowOperand::of_scalar(float s) {
  RowOperand o;
  o.scalar = s;
  return o;
}

namespace {

bool fp32_2d(const at::Tensor& t) { return t.scalar_type() == at::kFloat && t.dim() == 2; }

}  // namespace

bool Fp32RowTree::fits(const RowOperand& o, RowRole role) const {
  if (o.node >= 0) return role == RowRole::Elementwise && static_cast<size_t>(o.node) < nodes_.size();
  if (!o.tile.defined()) return role == RowRole::Elementwise;
  const at::Tensor& t = o.tile;
  if (!fp32_2d(t)) return false;
  switch (role) {
    case RowRole::Elementwise: return t.size(0) == rows_ && t.size(1) == cols_ && fp32_unit_rows(t);
    case RowRole::PerRow: return t.size(0) == rows_ && t.size(1) == 1;
    case RowRole::PerCol: return t.size(0) == 1 && t.size(1) == cols_ && fp32_unit_rows(t);
    case RowRole::None: break;
  }
  return false;
}

int Fp32RowTree::add(Fp32Arith op, RowRole role, RowOperand lhs, RowOperand rhs) {
  if (role == RowRole::None || (lhs.node < 0 && !lhs.tile.defined())) return -1;
  if (nodes_.empty()) {
    if (lhs.node >= 0 || !fp32_2d(lhs.tile)) return -1;
    const int64_t r = lhs.tile.size(0), c = lhs.tile.size(1);
    if (r * c == 0 || r * c > kFp32RowLoopMaxElements) return -1;
    rows_ = r;
    cols_ = c;
  }
  if (!fits(lhs, RowRole::Elementwise) || !fits(rhs, role)) return -1;
  Node node{fp32_row_loop(op), role, std::move(lhs), std::move(rhs)};
  if (node.lhs.tile.defined()) {
    node.lhs_data = node.lhs.tile.const_data_ptr<float>();
    node.lhs_stride = node.lhs.tile.stride(0);
  }
  if (node.rhs.tile.defined()) {
    node.rhs_data = node.rhs.tile.const_data_ptr<float>();
    node.rhs_stride = node.rhs.tile.stride(0);
  }
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size()) - 1;
}

void Fp32RowTree::tiles_of(int n, std::vector<const at::Tensor*>& out) const {
  const Node& node = nodes_[static_cast<size_t>(n)];
  for (const RowOperand* o : {&node.lhs, &node.rhs}) {
    if (o->node >= 0) tiles_of(o->node, out);
    else if (o->tile.defined()) out.push_back(&o->tile);
  }
}

bool Fp32RowTree::may_write(int n, const at::Tensor& out) const {
  if (!fp32_2d(out) || out.size(0) != rows_ || out.size(1) != cols_ || !fp32_unit_rows(out)) return false;
  std::vector<const at::Tensor*> tiles;
  tiles_of(n, tiles);
  for (size_t k = 0; k < tiles.size(); ++k)
    if (shares_memory(out, *tiles[k]) && !(k == 0 && same_view(*tiles[k], out))) return false;
  return true;
}

void Fp32RowTree::run_row(const Node& node, int64_t i, float* o, float* scratch) const {
  const float* a = o;
  if (node.lhs.node >= 0) run_row(nodes_[static_cast<size_t>(node.lhs.node)], i, o, scratch);
  else a = node.lhs_data + i * node.lhs_stride;
  const float* b = nullptr;
  float s = node.rhs.scalar;
  if (node.rhs.node >= 0) {
    // Below the rows this node's ancestors hold in scratch: the nesting depth bounds it.
    run_row(nodes_[static_cast<size_t>(node.rhs.node)], i, scratch, scratch + cols_);
    b = scratch;
  } else if (const float* p = node.rhs_data) {
    switch (node.role) {
      case RowRole::PerRow: s = p[i * node.rhs_stride]; break;
      case RowRole::PerCol: b = p; break;
      default: b = p + i * node.rhs_stride; break;
    }
  }
  node.loop(o, a, b, s, cols_);
}

void Fp32RowTree::run(int n, const at::Tensor& out) const {
  // One row per node at most (a right operand's subtree nests one level deeper each).
  static PYPTO_HOT_THREAD_LOCAL std::vector<float> scratch;
  const size_t need = nodes_.size() * static_cast<size_t>(cols_);
  if (scratch.size() < need) scratch.resize(need);
  float* o = out.mutable_data_ptr<float>();
  const int64_t o_stride = out.stride(0);
  const Node& root = nodes_[static_cast<size_t>(n)];
  for (int64_t i = 0; i < rows_; ++i) run_row(root, i, o + i * o_stride, scratch.data());
}

}  // namespace pypto_golden::sim::ops
