// Reading slot references out of a function of the loaded program's JSON (IR.md), for the
// analyses the loader runs over it before building the statements.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

namespace pypto_golden::sim {

// A slot number as an index below `count`, or -1 for anything else (the loader refuses
// those): a fuzz finding, a slot of 3.3e20 (a JSON float) converted to int was undefined
// behaviour.
inline int64_t slot_index(const nlohmann::json& s, size_t count) {
  if (!s.is_number_integer()) return -1;
  if (s.is_number_unsigned()) return s.get<uint64_t>() < count ? static_cast<int64_t>(s.get<uint64_t>()) : -1;
  const int64_t k = s.get<int64_t>();
  return k >= 0 && static_cast<uint64_t>(k) < count ? k : -1;
}

// Calls f(slot) for every variable an expression or a statement reads, child statement
// blocks ("body", "then", "else") left out; f sees -1 for a slot out of range. `enter(node)`
// is asked first at every other object: false skips its children (the caller took them).
template <typename F, typename Enter>
void for_each_read(const nlohmann::json& node, size_t count, F&& f, Enter&& enter) {
  if (node.is_object()) {
    auto e = node.find("e");
    if (e != node.end() && *e == "var") {
      auto s = node.find("slot");
      f(s == node.end() ? int64_t{-1} : slot_index(*s, count));
      return;
    }
    if (!enter(node)) return;
    for (const auto& [key, child] : node.items())
      if (key != "body" && key != "then" && key != "else") for_each_read(child, count, f, enter);
  } else if (node.is_array()) {
    for (const auto& child : node) for_each_read(child, count, f, enter);
  }
}

template <typename F>
void for_each_read(const nlohmann::json& node, size_t count, F&& f) {
  for_each_read(node, count, f, [](const nlohmann::json&) { return true; });
}

// Every place a function's JSON names a slot (IR.md), for analyses that must see all of
// them: v.read(slot) at each `var` expression, v.assign(slot) at each `assign`, and
// v.named(owner, key, n) for each integer n inside another slot-naming field of an object
// (`target`, `slots`, `var`, `dumps`, `no_dep`, `tid`, `joins`; the `joins` pairs' task ids
// come along, which can only make an analysis more careful). `slot` is the field as written,
// unchecked. Returns false, having stopped, when the JSON nests deeper than `max_depth`
// levels: a file the loader refuses, which must not overflow the stack here first.
template <typename Visitor>
bool visit_slot_names(const nlohmann::json& node, int max_depth, Visitor& v, int depth = 0) {
  if (depth > max_depth) return false;
  if (node.is_array()) {
    for (const auto& child : node)
      if (!visit_slot_names(child, max_depth, v, depth + 1)) return false;
    return true;
  }
  if (!node.is_object()) return true;
  const auto slot = node.find("slot");
  if (slot != node.end()) {
    const auto e = node.find("e");
    const auto s = node.find("s");
    if (e != node.end() && *e == "var") v.read(*slot);
    if (s != node.end() && *s == "assign") v.assign(*slot);
  }
  for (const char* key : {"target", "slots", "var", "dumps", "no_dep", "tid", "joins"}) {
    const auto it = node.find(key);
    if (it == node.end()) continue;
    bool shallow = true;
    auto integers = [&](const nlohmann::json& j, int d, auto& self) -> void {
      if (d > max_depth) {
        shallow = false;
      } else if (j.is_number_integer()) {
        v.named(node, key, j);
      } else if (j.is_array()) {
        for (const auto& child : j)
          if (shallow) self(child, d + 1, self);
      }
    };
    integers(*it, depth + 1, integers);
    if (!shallow) return false;
  }
  for (const auto& [key, child] : node.items())
    if ((child.is_object() || child.is_array()) && !visit_slot_names(child, max_depth, v, depth + 1)) return false;
  return true;
}

// `x = y` or `x = y[...]`: an assignment whose value views a variable (a chip launch's
// leading argument bindings; it reads nothing itself, what reads x reads y).
inline bool is_view_binding(const nlohmann::json& s) {
  if (!s.is_object() || !s.contains("s") || s["s"] != "assign") return false;
  auto value = s.find("value");
  if (value == s.end() || !value->is_object()) return false;
  auto e = value->find("e");
  return e != value->end() && (*e == "var" || *e == "subscript");
}

}  // namespace pypto_golden::sim
