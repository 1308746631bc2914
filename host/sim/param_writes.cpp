#include "sim/param_writes.h"

#include "sim/ir_slots.h"
#include "sim/ops/op_table.h"

#include <string>

namespace pypto_golden::sim {
namespace {

using json = nlohmann::json;
using Params = std::vector<bool>;  // a set of parameters, by index

bool merge(Params& into, const Params& from) {
  bool changed = false;
  for (size_t k = 0; k < into.size(); ++k)
    if (from[k] && !into[k]) into[k] = changed = true;
  return changed;
}

class Analysis {
 public:
  explicit Analysis(const json& fn) : params_(fn.at("params").size()) {
    aliases_.assign(fn.at("slots").size(), Params(params_, false));
    for (size_t k = 0; k < params_ && k < aliases_.size(); ++k)
      if (fn.at("params")[k].value("kind", std::string()) == "tensor") aliases_[k][k] = true;
    // Loop-carried values reach a slot from statements later in the body: iterate to a
    // fixed point (each round only adds, so it ends).
    while (propagate(fn.at("body"))) {
    }
  }

  Params written(const json& body) const {
    Params out(params_, false);
    collect_writes(body, out);
    return out;
  }

  std::map<const json*, Params> launch_writes(const json& body) const {
    std::map<const json*, Params> out;
    collect_launch_writes(body, out);
    return out;
  }

  Params write_only(const json& body) {
    find_bindings(body);
    Params touched(params_, false);  // used other than as the target of a write
    for (size_t j = 0; j < aliases_.size(); ++j)  // viewed by another variable, other than a binding
      for (size_t k = 0; k < params_; ++k)
        if (j != k && aliases_[j][k] && !binding_[j]) touched[k] = true;
    collect_uses(body, touched);
    Params out(params_, false);
    for (size_t k = 0; k < params_ && k < aliases_.size(); ++k) out[k] = aliases_[k][k] && !touched[k];
    return out;
  }

  Params host_reads(const json& body) const {
    Params read(params_, false);
    collect_host_reads(body, read);
    return read;
  }

 private:
  // The parameters the values an expression reads may be views of.
  Params reads(const json& node) const {
    Params out(params_, false);
    add_reads(node, out);
    return out;
  }

  void add_reads(const json& node, Params& out) const {
    for_each_read(node, aliases_.size(), [&](int64_t k) {
      if (k >= 0) merge(out, aliases_[static_cast<size_t>(k)]);
    });
  }

  // The parameters an expression's value may be a view of: those of the variables it reads,
  // except through an op whose result is new memory (OpDef::result_views), which passes on
  // only the arguments its result may be.
  Params views(const json& node) const {
    Params out(params_, false);
    add_views(node, out);
    return out;
  }

  void add_views(const json& node, Params& out) const {
    const auto var = [&](int64_t k) {
      if (k >= 0) merge(out, aliases_[static_cast<size_t>(k)]);
    };
    // A call whose result is new memory, or views only some of its arguments, views those.
    const auto enter = [&](const json& n) {
      if (n.value("e", std::string()) != "call") return true;
      const OpDef* def = op_table().find(n.value("op", std::string()));
      if (def == nullptr || def->result_views == OpDef::kAnyArg) return true;
      if (n.contains("args") && n.at("args").is_array())
        for (size_t k = 0; k < n.at("args").size() && k < 32; ++k)
          if (def->result_views >> k & 1u) add_views(n.at("args")[k], out);
      return false;
    };
    for_each_read(node, aliases_.size(), var, enter);
  }

  // The alias set of a slot number; null for one the loader refuses.
  Params* slot(const json& s) {
    const int64_t k = slot_index(s, aliases_.size());
    return k < 0 ? nullptr : &aliases_[static_cast<size_t>(k)];
  }
  const Params* slot(const json& s) const { return const_cast<Analysis*>(this)->slot(s); }

  bool propagate(const json& block) {
    bool changed = false;
    for (const auto& st : block) {
      const std::string s = st.value("s", std::string());
      if (s == "assign")
        if (Params* to = slot(st.at("slot"))) changed |= merge(*to, views(st.at("value")));
      if (s == "unpack") {
        const Params from = views(st.at("value"));
        for (const auto& k : st.at("slots"))
          if (Params* to = slot(k)) changed |= merge(*to, from);
      }
      for (const char* child : {"body", "then", "else"})
        if (st.contains(child)) changed |= propagate(st.at(child));
    }
    return changed;
  }

  void collect_calls(const json& node, Params& written) const {
    if (node.is_object()) {
      if (node.value("e", std::string()) == "call") {
        const OpDef* def = op_table().find(node.value("op", std::string()));
        const json& args = node.contains("args") ? node.at("args") : json::array();
        // An op the table does not know writes whatever it is given (the loader refuses it anyway).
        if (def == nullptr) merge(written, reads(args));
        else if (def->writes_arg >= 0 && args.size() > static_cast<size_t>(def->writes_arg))
          merge(written, views(args[static_cast<size_t>(def->writes_arg)]));
      }
      for (const auto& [key, child] : node.items())
        if (key != "body" && key != "then" && key != "else") collect_calls(child, written);
    } else if (node.is_array()) {
      for (const auto& child : node) collect_calls(child, written);
    }
  }

  void collect_writes(const json& block, Params& written) const {
    for (const auto& st : block) {
      if (st.value("s", std::string()) == "write")
        if (const Params* target = slot(st.at("target"))) merge(written, *target);
      collect_calls(st, written);
      for (const char* child : {"body", "then", "else"})
        if (st.contains(child)) collect_writes(st.at(child), written);
    }
  }

  void collect_launch_writes(const json& block, std::map<const json*, Params>& out) const {
    for (const auto& st : block) {
      if (st.value("s", std::string()) == "launch") {
        Params written(params_, false);
        collect_writes(st.at("body"), written);
        out[&st] = written;
        continue;
      }
      for (const char* child : {"body", "then", "else"})
        if (st.contains(child)) collect_launch_writes(st.at(child), out);
    }
  }

  // `v` or `v[...]`: another variable's value as it is, or a window of it (a view; past the
  // end of its tensor, a copy, whose writes then write nothing of v).
  static bool binding_value(const json& value) {
    if (!value.is_object()) return false;
    const std::string e = value.value("e", std::string());
    if (e == "var") return value.contains("slot");
    return e == "subscript" && value.contains("base") && value.at("base").is_object() &&
           value.at("base").value("e", std::string()) == "var";
  }

  // The bindings: variables other than parameters that only ever hold another variable's
  // value as it is or a window of it (`a = y`, `blk = y[r : r + 64, :]`; a spliced InCore
  // call binds its parameters and its return value so) or the result of a store into
  // themselves (stored_target). Writing through one writes the variable it holds; a
  // parameter viewed only by bindings can still be write-only.
  void find_bindings(const json& body) {
    binding_.assign(aliases_.size(), true);
    for (size_t k = 0; k < params_ && k < binding_.size(); ++k) binding_[k] = false;
    // Until no more change: a store's target must itself be a parameter or a binding.
    while (unbind(body)) {
    }
  }

  bool unbind(const json& block) {
    bool changed = false;
    const auto drop = [&](const json& s) {
      const int64_t k = slot_index(s, binding_.size());
      if (k < 0 || !binding_[static_cast<size_t>(k)]) return;
      binding_[static_cast<size_t>(k)] = false;
      changed = true;
    };
    for (const auto& st : block) {
      const std::string s = st.value("s", std::string());
      if (s == "assign" && !binding_value(st.at("value")) && stored_target(st) < 0) drop(st.at("slot"));
      if (s == "for") drop(st.at("var"));
      if (s == "unpack")
        for (const auto& k : st.at("slots")) drop(k);
      for (const char* child : {"body", "then", "else"})
        if (st.contains(child)) changed |= unbind(st.at(child));
    }
    return changed;
  }

  // A binding's slot number (false before find_bindings).
  bool is_binding(int64_t k) const {
    return k >= 0 && static_cast<size_t>(k) < binding_.size() && binding_[static_cast<size_t>(k)];
  }
  bool binding(const json& s) const { return is_binding(slot_index(s, aliases_.size())); }

  // A parameter's variable or a binding: a store into it writes (a window of) a parameter.
  bool store_target_slot(int64_t k) const { return k >= 0 && (static_cast<size_t>(k) < params_ || is_binding(k)); }

  // `pl.store(t, offsets, y)` or `y = pl.assemble(y, src, offsets)` without an atomic add:
  // a statement that writes a window of parameter variable (or binding) y and reads nothing
  // of it (the op's result, y itself, is assigned back to y or to a binding, or dropped).
  // The argument that is y's variable, or -1.
  int64_t stored_target(const json& st) const {
    const std::string s = st.value("s", std::string());
    if ((s != "assign" && s != "expr") || !st.contains("value")) return -1;
    const json& call = st.at("value");
    if (!call.is_object() || call.value("e", std::string()) != "call" || !call.contains("args")) return -1;
    const std::string op = call.value("op", std::string());
    const int64_t target = op == "store" ? 2 : op == "assemble" ? 0 : -1;
    const json& args = call.at("args");
    if (target < 0 || !args.is_array() || args.size() <= static_cast<size_t>(target)) return -1;
    const json& arg = args[static_cast<size_t>(target)];
    if (!arg.is_object() || arg.value("e", std::string()) != "var" || !arg.contains("slot")) return -1;
    const int64_t k = slot_index(arg.at("slot"), aliases_.size());
    if (!store_target_slot(k)) return -1;
    // The op's result is y itself: assigned back to y, or to a binding (`return
    // pl.store(t, offsets, y)` in a spliced call binds its return value so).
    if (s == "assign") {
      const int64_t to = slot_index(st.at("slot"), aliases_.size());
      if (to != k && !is_binding(to)) return -1;
    }
    if (call.contains("kwargs") && call.at("kwargs").is_object() && call.at("kwargs").contains("atomic")) {
      const json& atomic = call.at("kwargs").at("atomic");  // an atomic add reads the target
      const std::string v = atomic.value("v", std::string());
      const bool none = atomic.value("dtype", std::string()) == "none" || v == "AtomicType.None_" ||
                        v == "AtomicType.None";
      if (!none) return -1;
    }
    return target;
  }

  // The parameters a block uses other than as the target of `write` or of a store
  // (stored_target): read (a return's values aside, which a dispatch drops), assigned, or
  // dumped by a task.
  void collect_uses(const json& block, Params& used) const {
    const auto mark = [&](const json& s) {
      const int64_t k = slot_index(s, aliases_.size());
      if (k >= 0 && static_cast<size_t>(k) < params_) used[static_cast<size_t>(k)] = true;
    };
    const auto dumped = [&](const json& s) {  // a dump reads all a variable may view
      const int64_t k = slot_index(s, aliases_.size());
      if (k >= 0) merge(used, aliases_[static_cast<size_t>(k)]);
    };
    for (const auto& st : block) {
      const std::string s = st.value("s", std::string());
      if (const int64_t target = stored_target(st); target >= 0) {
        const json& call = st.at("value");
        const json& args = call.at("args");
        for (size_t k = 0; k < args.size(); ++k)
          if (static_cast<int64_t>(k) != target) add_reads(args[k], used);
        if (call.contains("kwargs")) add_reads(call.at("kwargs"), used);
        continue;
      }
      if (s == "assign" && rebinding(st)) {  // no read, and no new tensor in a parameter
        if (st.at("value").contains("index")) add_reads(st.at("value").at("index"), used);
        continue;
      }
      if (s == "assign") mark(st.at("slot"));
      if (s == "for") mark(st.at("var"));
      if (s == "unpack")
        for (const auto& k : st.at("slots")) mark(k);
      if (st.contains("dumps") && st.at("dumps").is_array())
        for (const auto& k : st.at("dumps")) dumped(k);
      if (s == "return" && st.contains("values") && st.at("values").is_array()) {
        for (const auto& v : st.at("values"))
          if (v.value("e", std::string()) != "var") add_reads(v, used);
      } else {
        add_reads(st, used);
      }
      for (const char* child : {"body", "then", "else"})
        if (st.contains(child)) collect_uses(st.at(child), used);
    }
  }

  void collect_host_reads(const json& block, Params& read) const {
    for (const auto& st : block) {
      const std::string s = st.value("s", std::string());
      if (s == "launch") continue;  // a chip program's reads are the rank's
      if (s == "write")
        if (const Params* target = slot(st.at("target"))) merge(read, *target);
      if (!is_view_binding(st)) add_reads(st, read);
      for (const char* child : {"body", "then", "else"})
        if (st.contains(child)) collect_host_reads(st.at(child), read);
    }
  }

  // `t = v` or `t = v[...]` into a binding t, or `y = t` from a binding t into a parameter y
  // (a spliced call taking the result back): no read of v's elements (a window's indices
  // aside), and y then holds what it held or a tensor whose reads count through t's views.
  bool rebinding(const json& st) const {
    const json& value = st.at("value");
    if (!binding_value(value)) return false;
    if (binding(st.at("slot"))) return true;
    return value.value("e", std::string()) == "var" && binding(value.at("slot"));
  }

  size_t params_;
  std::vector<Params> aliases_;  // per slot: the parameters its value may be a view of
  std::vector<bool> binding_;    // per slot: a binding (find_bindings); empty before write_only
};

}  // namespace

ParamUses param_uses(const json& function, bool host) {
  Analysis analysis(function);
  const json& body = function.at("body");
  ParamUses uses;
  uses.written = analysis.written(body);
  uses.write_only = analysis.write_only(body);
  if (host) {
    uses.read_on_host = analysis.host_reads(body);
    uses.launch_writes = analysis.launch_writes(body);
  }
  return uses;
}

}  // namespace pypto_golden::sim
