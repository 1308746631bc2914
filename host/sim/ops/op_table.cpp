#include "sim/ops/op_table.h"

#include <stdexcept>

namespace pypto_golden::sim {

void OpTable::add(OpDef def) {
  if (find(def.name)) throw std::logic_error("op '" + def.name + "' registered twice");
  defs_.push_back(std::move(def));
}

const OpDef* OpTable::find(const std::string& name) const {
  for (const auto& d : defs_)
    if (d.name == name) return &d;
  return nullptr;
}

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_elementwise_ops(t);
    register_creation_ops(t);
    register_view_ops(t);
    register_valid_region_ops(t);
    register_reduction_ops(t);
    register_matmul_ops(t);
    register_cast_ops(t);
    register_sort_ops(t);
    register_scalar_ops(t);
    register_array_ops(t);
    register_task_ops(t);
    register_distributed_ops(t);
    return t;
  }();
  return table;
}

}  // namespace pypto_golden::sim
