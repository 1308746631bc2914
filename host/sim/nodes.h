// The executable form of a simulator program: a tree of expression and statement nodes
// built once from sim_program.json, then walked by the executor.
#pragma once

#include "sim/value.h"

#include <memory>
#include <string>
#include <vector>

namespace pypto_golden::sim {

class Device;
struct Function;

// The variables of one running function. Parallel iterations each get a copy.
struct Frame {
  const Function* function = nullptr;
  Device* device = nullptr;
  std::vector<Value> slots;
  std::vector<int> active_loop_vars;  // innermost last; named in error messages
  bool in_parallel = false;           // inside an iteration of a pl.parallel / pl.spmd loop
  int64_t launch = 0;  // the spmd launch whose block this iteration runs (task graph recorded), else 0
  bool returned = false;
  Value return_value;

  // A copy of this frame whose variables are held in `slots` (of any contents: given the
  // frame's values here), so that a caller may hand in a vector whose memory it reuses.
  // With `only`, `slots` must hold no values (None, any length) and just the variables it
  // lists, with those of the loops in force, are copied: the others stay None.
  Frame copy_into(std::vector<Value> slots, const std::vector<int>* only = nullptr) const {
    Frame f;
    f.function = function;
    f.device = device;
    if (only == nullptr) {
      slots.assign(this->slots.begin(), this->slots.end());
    } else {
      slots.resize(this->slots.size());
      for (const int k : *only) slots[static_cast<size_t>(k)] = this->slots[static_cast<size_t>(k)];
      for (const int k : active_loop_vars) slots[static_cast<size_t>(k)] = this->slots[static_cast<size_t>(k)];
    }
    f.slots = std::move(slots);
    f.active_loop_vars.reserve(active_loop_vars.size() + 1);  // room for the copy's loop variable
    f.active_loop_vars = active_loop_vars;
    f.in_parallel = in_parallel;
    f.launch = launch;
    f.returned = returned;
    f.return_value = return_value;
    return f;
  }
};

class Expr {
 public:
  virtual ~Expr() = default;
  virtual Value eval(Frame& frame) const = 0;
  // Evaluates straight into `dst` (a view of the same shape and dtype) when the node can
  // do so without a temporary; the default evaluates and copies. Returns what it wrote.
  virtual WrittenCorner eval_into(Frame& frame, const at::Tensor& dst) const;
  // Evaluating it writes no memory (a constant, a variable, scalar arithmetic on them, a
  // load, a shape query): what a load evaluated before it still reads the same bytes after it.
  virtual bool writes_nothing() const { return false; }
  // The integer value, without making a Value, when the node is a constant, a variable or
  // integer arithmetic of those and its value is an integer or bool scalar (an index, a
  // bound); false, having thrown nothing, otherwise. eval() gives the same value.
  virtual bool try_int(Frame&, int64_t&) const { return false; }
};
using ExprPtr = std::unique_ptr<Expr>;

// An integer-valued expression: try_int's fast path, else eval() and Value::as_int(what)
// (whose message names `what` when it is not an integer).
inline int64_t eval_int(const Expr& e, Frame& frame, const char* what) {
  int64_t v = 0;
  if (e.try_int(frame, v)) return v;
  return e.eval(frame).as_int(what);
}

class Stmt {
 public:
  explicit Stmt(int line) : line_(line) {}
  virtual ~Stmt() = default;
  // Executes the statement, turning kernel mistakes into located SimErrors.
  void run(Frame& frame) const;
  int line() const { return line_; }

 protected:
  virtual void exec(Frame& frame) const = 0;

 private:
  int line_;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

// Runs statements in order until one of them returns.
void run_block(const Block& block, Frame& frame);

struct ParamInfo {
  std::string name;
  bool is_tensor = true;
  std::string direction;  // In / Out / InOut
  std::vector<int64_t> shape;
  std::string dtype;
  bool runtime_scalar = false;
  // A specialised scalar: the value compiled into the program, and its JSON text ("" when
  // the program does not record it).
  double specialised_value = 0.0;
  std::string specialised_text;
  // Whether the body may write this tensor (sim/param_writes.h); an In tensor it never
  // writes shares its host bytes with the device.
  bool may_be_written = true;
  // Whether the body only writes it, through `write` statements (ParamUses::write_only).
  bool write_only = false;
  // An L3 host program's parameter its body may read outside its chip launches
  // (sim/param_writes.h): one it does not is used by the ranks only.
  bool read_on_host = true;
};

struct Function {
  std::string name;
  bool host = false;  // a @pl.jit.host program (L3): its body launches chip programs on the ranks
  std::string source_file;
  int line = 0;
  std::vector<ParamInfo> params;
  std::vector<std::string> slot_names;
  Block body;
};

class LaunchStmt;

struct Program {
  int version = 1;
  std::string source_file;
  std::string text;  // the JSON it was loaded from: what a rank in another process loads
  std::vector<std::unique_ptr<Function>> functions;  // [0] is the entry
  std::vector<int> devices;  // an L3 program's device ids, one rank each (empty: one device)
  std::vector<const LaunchStmt*> launches;  // an L3 program's chip launches, in load order
  const Function& entry() const { return *functions.front(); }
};

}  // namespace pypto_golden::sim
