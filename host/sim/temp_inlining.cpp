#include "sim/temp_inlining.h"

#include "sim/ops/op_table.h"

#include <map>
#include <string>

namespace pypto_golden::sim {
namespace {

using nlohmann::json;

struct SlotUses {
  std::map<int, int> reads, assigns;
  std::set<int> elsewhere;
  int max_depth = 0;
  bool too_deep = false;  // a hostile file: the walk stopped (the loader refuses it)

  void integers_in(const json& node, int depth) {
    if (depth > max_depth) {
      too_deep = true;
      return;
    }
    if (node.is_number_integer()) elsewhere.insert(node.get<int>());
    if (node.is_array() || node.is_object())
      for (const auto& child : node) integers_in(child, depth + 1);
  }

  void walk(const json& node, int depth) {
    if (depth > max_depth) {
      too_deep = true;
      return;
    }
    if (node.is_array()) {
      for (const auto& child : node) walk(child, depth + 1);
      return;
    }
    if (!node.is_object()) return;
    const auto e = node.find("e");
    const auto s = node.find("s");
    const auto slot = node.find("slot");
    if (e != node.end() && *e == "var" && slot != node.end() && slot->is_number_integer()) ++reads[slot->get<int>()];
    if (s != node.end() && *s == "assign" && slot != node.end() && slot->is_number_integer())
      ++assigns[slot->get<int>()];
    // Every other field that names slots (IR.md): counted whole, numbers of other kinds
    // included, which can only keep a slot from folding.
    for (const char* key : {"target", "slots", "var", "dumps", "no_dep", "tid", "joins"}) {
      const auto it = node.find(key);
      if (it != node.end()) integers_in(*it, depth + 1);
    }
    for (const auto& [key, child] : node.items())
      if (child.is_object() || child.is_array()) walk(child, depth + 1);
  }
};

// The call's op when it is an FP32 row-nest op called with two positional arguments.
bool row_call(const json& e) {
  if (!e.is_object() || e.value("e", std::string()) != "call") return false;
  const auto op = e.find("op");
  const auto args = e.find("args");
  if (op == e.end() || !op->is_string() || args == e.end() || !args->is_array() || args->size() != 2) return false;
  const auto kwargs = e.find("kwargs");
  if (kwargs != e.end() && !kwargs->is_null() && !kwargs->empty()) return false;
  const OpDef* def = op_table().find(op->get<std::string>());
  return def != nullptr && def->row_role != ops::RowRole::None;
}

}  // namespace

std::set<int> single_use_slots(const json& function, int params, int max_depth) {
  SlotUses uses;
  uses.max_depth = max_depth;
  if (const auto body = function.find("body"); body != function.end()) uses.walk(*body, 0);
  std::set<int> out;
  if (uses.too_deep) return out;
  for (const auto& [slot, n] : uses.assigns) {
    const auto read = uses.reads.find(slot);
    if (slot >= params && n == 1 && read != uses.reads.end() && read->second == 1 && uses.elsewhere.count(slot) == 0)
      out.insert(slot);
  }
  return out;
}

const json* folds_into_next(const json& def, const json& use, const std::set<int>& temps) {
  if (!def.is_object() || !use.is_object() || def.value("s", std::string()) != "assign") return nullptr;
  const auto slot = def.find("slot");
  if (slot == def.end() || !slot->is_number_integer() || temps.count(slot->get<int>()) == 0) return nullptr;
  const auto def_value = def.find("value");
  if (def_value == def.end() || !row_call(*def_value)) return nullptr;
  const std::string kind = use.value("s", std::string());
  if (kind != "assign" && kind != "write") return nullptr;
  const auto use_value = use.find("value");
  if (use_value == use.end() || !row_call(*use_value)) return nullptr;
  // Down the first arguments: what the statement evaluates first.
  const json* call = &*use_value;
  while (row_call((*call)["args"][0])) call = &(*call)["args"][0];
  const json& first = (*call)["args"][0];
  const bool reads_temp = first.is_object() && first.value("e", std::string()) == "var" && first.contains("slot") &&
                          first["slot"] == *slot;
  return reads_temp ? call : nullptr;
}

}  // namespace pypto_golden::sim
