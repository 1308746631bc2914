// The table of runtime ops a simulator program may call, by IR name ("add", ...).
#pragma once

#include "sim/ops/fp32_row_tree.h"
#include "sim/ops/op_args.h"
#include "sim/value.h"

#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

struct OpDef {
  std::string name;
  int min_args = 0;
  int max_args = 0;
  std::vector<std::string> keywords;  // accepted keyword names
  Value (*fn)(const OpArgs&) = nullptr;
  // Writes the result into `dst`, straight when it can; returns what it wrote of it.
  // Optional (without it the caller evaluates and copies).
  WrittenCorner (*into)(const OpArgs&, const at::Tensor& dst) = nullptr;
  // The position of the argument the op writes in place (pl.store's output_tensor, ...), -1
  // when it writes none: what tells which parameters a program may write (sim/param_writes.h).
  int writes_arg = -1;
  // The arguments (bit k: argument k) the task graph does not take as read whole when a
  // plain variable is given there: the op records the window it reads or writes itself
  // (pl.load's source, pl.store's target, ...), or reads only the shape (pl.tensor.dim), or
  // the value is not a tensor of the task graph (an array, a distributed window).
  uint32_t windowed_args = 0;
  // The arguments (bit k: argument k) the op's result may share memory with; kAnyArg (the
  // default): any argument or keyword. A variable bound to the result counts as a view of
  // them when sim/param_writes decides which parameters a program may write, so an op must
  // narrow this only when its result never shares memory with the others (fresh_result).
  uint32_t result_views = kAnyArg;
  static constexpr uint32_t kAnyArg = ~0u;
  // An FP32 add / sub / mul / div of its two positional arguments that calls nested in one
  // another may run fused, a row at a time (sim/ops/fp32_row_tree.h); None: not such an op.
  ops::RowRole row_role = ops::RowRole::None;
  ops::Fp32Arith row_arith = ops::Fp32Arith::Add;
};

// `def` with `windowed_args` set (for the defs op_def<> makes).
inline OpDef windowed(OpDef def, uint32_t args) {
  def.windowed_args = args;
  return def;
}

// `def` whose result is always new memory, or (bit k of `views`) argument k itself: a
// variable bound to it is no view of the other arguments.
inline OpDef fresh_result(OpDef def, uint32_t views = 0) {
  def.result_views = views;
  return def;
}

// `def` (an op whose FP32 form is the row loop `arith`) as one the fused row evaluator may run.
inline OpDef row_fusable(OpDef def, ops::RowRole role, ops::Fp32Arith arith) {
  def.row_role = role;
  def.row_arith = arith;
  return def;
}

class OpTable {
 public:
  void add(OpDef def);
  const OpDef* find(const std::string& name) const;
  const std::vector<OpDef>& all() const { return defs_; }

 private:
  std::vector<OpDef> defs_;
};

// All ops of the simulator, registered once.
const OpTable& op_table();

// Registration functions, one per op family (each in its own file).
void register_elementwise_ops(OpTable& table);
void register_creation_ops(OpTable& table);
void register_view_ops(OpTable& table);
void register_valid_region_ops(OpTable& table);
void register_reduction_ops(OpTable& table);
void register_matmul_ops(OpTable& table);
void register_cast_ops(OpTable& table);
void register_sort_ops(OpTable& table);
void register_scalar_ops(OpTable& table);
void register_task_ops(OpTable& table);
void register_array_ops(OpTable& table);
void register_distributed_ops(OpTable& table);

}  // namespace pypto_golden::sim
