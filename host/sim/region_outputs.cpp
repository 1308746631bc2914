#include "sim/region_outputs.h"

#include "sim/ir_slots.h"

#include <string>

namespace pypto_golden::sim {
namespace {

using json = nlohmann::json;
using Slots = std::vector<char>;  // a set of slots, by index

// `into` |= `from`.
void add(Slots& into, const Slots& from) {
  for (size_t k = 0; k < into.size(); ++k) into[k] = into[k] || from[k];
}

// A statement's child block, by reference: the regions' addresses name them.
const json& child(const json& st, const char* key) {
  static const json kNone = json::array();
  auto it = st.find(key);
  return it == st.end() ? kNone : *it;
}

// Backward liveness over the statement tree: live(block, after) is the set of slots whose
// value at the block's start may be read before being defined again.
class Liveness {
 public:
  explicit Liveness(const json& fn) : count_(fn.at("slots").size()) {}

  std::unordered_map<const json*, std::vector<int>> run(const json& body) {
    // Whole-function passes until no loop's head set grows (each pass only adds, so they
    // end): iterating each loop to its own fixed point inside its parent's iterations would
    // take exponentially many walks of deeply nested loops. The last pass, which changed
    // nothing, noted the regions' outputs from the final sets.
    do {
      grew_ = false;
      outputs_.clear();
      live(body, Slots(count_, 0));
    } while (grew_);
    return std::move(outputs_);
  }

 private:
  Slots live(const json& block, Slots after) {
    if (!block.is_array()) return after;
    for (auto it = block.rbegin(); it != block.rend(); ++it) after = live_before(*it, std::move(after));
    return after;
  }

  void define(Slots& set, const json& s) const {
    const int64_t k = slot_index(s, count_);
    if (k >= 0) set[static_cast<size_t>(k)] = 1;
  }

  void kill(Slots& live, const json& s) const {
    const int64_t k = slot_index(s, count_);
    if (k >= 0) live[static_cast<size_t>(k)] = 0;
  }

  // Reads of the statement itself (its expressions, not its child blocks).
  void add_reads(const json& st, Slots& live) const {
    for_each_read(st, count_, [&live](int64_t k) {
      if (k >= 0) live[static_cast<size_t>(k)] = 1;
    });
  }

  // The slots a block defines, at any depth.
  void defined_in(const json& block, Slots& out) const {
    if (!block.is_array()) return;
    for (const auto& st : block) {
      if (!st.is_object()) continue;
      const std::string s = st.value("s", std::string());
      if (s == "assign" && st.contains("slot")) define(out, st["slot"]);
      if (s == "unpack" && st.contains("slots") && st["slots"].is_array())
        for (const auto& k : st["slots"]) define(out, k);
      if (s == "for" && st.contains("var")) define(out, st["var"]);
      for (const char* key : {"body", "then", "else"}) defined_in(child(st, key), out);
    }
  }

  Slots live_before(const json& st, Slots after) {
    if (!st.is_object()) return after;
    const std::string s = st.value("s", std::string());
    if (s == "assign" && st.contains("slot")) {
      kill(after, st["slot"]);
    } else if (s == "unpack" && st.contains("slots") && st["slots"].is_array()) {
      for (const auto& k : st["slots"]) kill(after, k);
    } else if (s == "write" && st.contains("target")) {
      define(after, st["target"]);  // writing into a tensor reads the variable that holds it
    } else if (s == "return") {
      after.assign(count_, 0);  // nothing after it runs
    } else if (s == "if") {
      Slots both = live(child(st, "then"), after);
      add(both, live(child(st, "else"), std::move(after)));
      after = std::move(both);
    } else if (s == "at") {
      note_outputs(st, after);
      after = live(child(st, "body"), std::move(after));
    } else if (s == "launch") {
      // A chip launch runs its body on a copy of the frame: what it defines stays there.
      add(after, live(child(st, "body"), Slots(count_, 0)));
    } else if (s == "for") {
      const json& kind = child(st, "kind");
      if (kind == "parallel" || kind == "spmd") {
        // Each iteration runs on its own copy of the variables, dropped when it ends: what
        // one binds is read by no other and by nothing after the loop.
        Slots body = live(child(st, "body"), Slots(count_, 0));
        if (st.contains("var")) kill(body, st["var"]);
        add(after, body);
      } else {
        after = loop_head(st, std::move(after));
      }
    }
    add_reads(st, after);
    return after;
  }

  // What is live at a loop's head: after the loop (it may run no iteration) or at the
  // start of an iteration's body, its variable aside. The body is walked with the head set
  // of the pass before; a set that grows makes run() walk again.
  Slots loop_head(const json& st, const Slots& after) {
    Slots& head = heads_[&st];
    if (head.empty()) head = after;
    Slots next = live(child(st, "body"), head);
    if (st.contains("var")) kill(next, st["var"]);
    for (size_t k = 0; k < count_; ++k)
      if ((next[k] || after[k]) && !head[k]) head[k] = grew_ = true;
    return head;
  }

  void note_outputs(const json& at, const Slots& after) {
    Slots defined(count_, 0);
    defined_in(child(at, "body"), defined);
    std::vector<int> out;
    for (size_t k = 0; k < count_; ++k)
      if (defined[k] && after[k]) out.push_back(static_cast<int>(k));
    if (out.empty())
      outputs_.erase(&at);
    else
      outputs_[&at] = std::move(out);
  }

  size_t count_;
  std::unordered_map<const json*, std::vector<int>> outputs_;
  std::unordered_map<const json*, Slots> heads_;  // per sequential loop: its head set so far
  bool grew_ = false;
};

}  // namespace

std::unordered_map<const json*, std::vector<int>> region_outputs(const json& function) {
  return Liveness(function).run(function.at("body"));
}

}  // namespace pypto_golden::sim
