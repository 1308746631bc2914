#include "sim/temp_inlining.h"

#include "sim/ir_slots.h"
#include "sim/ops/op_table.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>

namespace pypto_golden::sim {
namespace {

using nlohmann::json;

// How often each slot is read and assigned, and the slots named any other way.
struct SlotUses {
  std::map<int, int> reads, assigns;
  std::set<int> elsewhere;

  // A slot number in int's range (the loader refuses the rest, and negative ones).
  static bool slot_of(const json& j, int& out) {
    const int64_t k = slot_index(j, size_t{INT32_MAX} + 1);
    if (k >= 0) out = static_cast<int>(k);
    return k >= 0;
  }
  void read(const json& slot) {
    int k;
    if (slot_of(slot, k)) ++reads[k];
  }
  void assign(const json& slot) {
    int k;
    if (slot_of(slot, k)) ++assigns[k];
  }
  void named(const json&, const char*, const json& n) {
    int k;
    if (slot_of(n, k)) elsewhere.insert(k);
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

bool is_call(const json& e) { return e.is_object() && e.value("e", std::string()) == "call"; }

// pl.load(tensor, offsets, shapes[, valid_shape], *, target_memory, clamp). Its keywords
// go with it: they are the load's own (the corpus's usual form names target_memory).
bool load_call(const json& e) {
  if (!is_call(e) || e.value("op", std::string()) != "load") return false;
  const auto args = e.find("args");
  return args != e.end() && args->is_array() && !args->empty();
}

// An expression of constants, variables and operators on them: it makes new values only.
bool scalar_expression(const json& e, int depth) {
  if (!e.is_object() || depth > 64) return false;
  const std::string kind = e.value("e", std::string());
  if (kind == "const" || kind == "var") return true;
  if (kind == "unary") return e.contains("operand") && scalar_expression(e["operand"], depth + 1);
  if (kind == "binop")
    return e.contains("lhs") && e.contains("rhs") && scalar_expression(e["lhs"], depth + 1) &&
           scalar_expression(e["rhs"], depth + 1);
  return false;
}

// The variables an expression reads.
struct Reads {
  std::set<int>& out;
  void read(const json& slot) {
    int k;
    if (SlotUses::slot_of(slot, k)) out.insert(k);
  }
  void assign(const json&) {}
  void named(const json&, const char*, const json&) {}
};

}  // namespace

std::optional<FoldPlan> plan_fold(const json& stmts, size_t k, const std::set<int>& temps) {
  if (!stmts.is_array() || k >= stmts.size()) return std::nullopt;
  const json& def = stmts[k];
  int slot;
  if (!def.is_object() || def.value("s", std::string()) != "assign" || !def.contains("slot") ||
      !SlotUses::slot_of(def["slot"], slot) || temps.count(slot) == 0 || !def.contains("value"))
    return std::nullopt;
  // A slot in `temps`: the function's walk stayed inside the loader's depth bound, and so
  // does this one, of a part of it.
  std::set<int> def_reads;
  Reads reads{def_reads};
  visit_slot_names(def["value"], std::numeric_limits<int>::max() - 1, reads);
  for (size_t u = k + 1; u < stmts.size(); ++u) {
    if (const json* into = folds_into_next(def, stmts[u], temps)) return FoldPlan{u, into};
    const json& s = stmts[u];
    int assigned;
    if (!s.is_object() || s.value("s", std::string()) != "assign" || !s.contains("slot") ||
        !SlotUses::slot_of(s["slot"], assigned) || def_reads.count(assigned) != 0 || !s.contains("value") ||
        !scalar_expression(s["value"], 0))
      return std::nullopt;
  }
  return std::nullopt;
}

std::set<int> single_use_slots(const json& function, int params, int max_depth) {
  SlotUses uses;
  std::set<int> out;
  if (const auto body = function.find("body"); body != function.end() && !visit_slot_names(*body, max_depth, uses))
    return out;
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
  if (def_value == def.end()) return nullptr;
  const bool load = load_call(*def_value);
  if (!load && !row_call(*def_value)) return nullptr;
  const std::string kind = use.value("s", std::string());
  if (kind != "assign" && kind != "write") return nullptr;
  const auto use_value = use.find("value");
  // A row-nest temporary joins a row nest; a load may go into any call.
  auto descends = [load](const json& e) {
    if (!load) return row_call(e);
    if (!is_call(e)) return false;
    const auto args = e.find("args");
    return args != e.end() && args->is_array() && !args->empty();
  };
  if (use_value == use.end() || !descends(*use_value)) return nullptr;
  // Down the first arguments: what the statement evaluates first.
  const json* call = &*use_value;
  while (descends((*call)["args"][0])) call = &(*call)["args"][0];
  const json& first = (*call)["args"][0];
  const bool reads_temp = first.is_object() && first.value("e", std::string()) == "var" && first.contains("slot") &&
                          first["slot"] == *slot;
  return reads_temp ? call : nullptr;
}

}  // namespace pypto_golden::sim
