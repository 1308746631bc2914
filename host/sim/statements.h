// Statement nodes of the simulator program.
#pragma once

#include "sim/nodes.h"
#include "sim/row_batch.h"
#include "sim/window.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

class TaskRecorder;
class TaskIdJoins;

enum class LoopKind { Range, Parallel, Unroll, Pipeline, Spmd };

// pl.system.syncall(): every iteration of the enclosing pl.parallel / pl.spmd loop reaches
// it before any goes on. A ForStmt runs the parts of its body between barriers as phases (one
// phase for all iterations, then the next); executed anywhere else inside an iteration it is
// an error, and outside any parallel loop it has nothing to wait for.
class BarrierStmt : public Stmt {
 public:
  explicit BarrierStmt(int line) : Stmt(line) {}

 protected:
  void exec(Frame& frame) const override;
};

class ForStmt : public Stmt {
 public:
  // `ordered`: a parallel / spmd loop whose iterations must still run in order (see IR.md).
  ForStmt(int line, LoopKind kind, int var, ExprPtr start, ExprPtr stop, ExprPtr step, Block body,
          bool ordered = false);
  // A pl.spmd launch as a task (sim/task_ids.h): the slot its id is bound to (-1: none),
  // its deps= and whether a pl.manual_scope holds it.
  void set_task(int tid, std::vector<ExprPtr> deps, bool manual);
  // Whether its iterations after the first may run as one op (sim/row_batch.h).
  const RowBatch* row_batch() const { return row_batch_.get(); }
  // Task ids the iterations bind to names read after the loop (slot, id when not recorded).
  void set_joins(std::vector<std::pair<int, int64_t>> joins) { joins_ = std::move(joins); }
  // Parallel / spmd loops: the variables the body may read (the loader's analysis, joins
  // included). An iteration's frame then copies only those, not every variable of the
  // function, unless task windows are recorded (they name a storage by the lowest variable
  // holding it, read or not).
  void set_live_in(std::vector<int> slots) { live_in_ = std::move(slots); }
  const std::vector<int>* live_in() const { return live_in_ ? &*live_in_ : nullptr; }
  const Block& body() const { return body_; }

 protected:
  void exec(Frame& frame) const override;

 private:
  Frame iteration_frame(const Frame& frame, int64_t index) const;
  void run_phases(Frame& frame, int64_t start, int64_t step, int64_t trips, TaskIdJoins& joins) const;
  // A launch's id, bound to its tid slot (0 when the graph is not recorded).
  int64_t submit_launch(Frame& frame, int64_t trips) const;

  LoopKind kind_;
  int var_;
  ExprPtr start_, stop_, step_;
  Block body_;
  bool ordered_;
  int tid_ = -1;
  std::vector<ExprPtr> deps_;
  bool manual_ = false;
  std::vector<std::pair<int, int64_t>> joins_;
  std::optional<std::vector<int>> live_in_;  // none: not analysed, every slot is copied
  std::unique_ptr<RowBatch> row_batch_;  // sequential loops only
  // Parallel / spmd loops with top-level barriers: where each phase of the body ends (the
  // indices of the barriers, then the body's size); empty without barriers.
  std::vector<size_t> phase_ends_;
};

// A @pl.jit.host program's chip(..., device=rank): the chip program's body starts on the
// rank's device, with its own copy of the host's variables (window views rebound to the
// rank's copy of each window), while the host goes on.
class LaunchStmt : public Stmt {
 public:
  // `bindings`: the body's leading assignments (the chip program's arguments bound to its
  // parameters); `reads`: the host variables the body reads, `bound_reads` those the body
  // after the bindings reads.
  LaunchStmt(int line, ExprPtr rank, std::string name, Block body, int index, size_t bindings,
             std::vector<int> reads, std::vector<int> bound_reads)
      : Stmt(line), rank_(std::move(rank)), name_(std::move(name)), body_(std::move(body)), index_(index),
        bindings_(bindings), reads_(std::move(reads)), bound_reads_(std::move(bound_reads)) {}

  // Its place among the program's launches (Program::launches).
  int index() const { return index_; }
  // The host variables (frame slots) the chip program may read: all of it (`bound` false),
  // or after bind_arguments.
  const std::vector<int>& reads(bool bound) const { return bound ? bound_reads_ : reads_; }
  // Whether the chip program may write parameter `k` of the host program (a view of it; the
  // loader's analysis, sim/param_writes.h; true when unknown).
  bool may_write_param(size_t k) const { return k >= params_written_.size() || params_written_[k]; }
  void set_params_written(std::vector<bool> written) { params_written_ = std::move(written); }
  // For a rank in another process: runs the argument bindings in `chip` (a copy of the
  // host's frame) here, so the rank is sent the argument views (rows[r]) rather than the
  // whole host tensors (rows). False when a binding failed or made a tensor that is not a
  // view of the host's own (the rank then binds them itself, as a rank thread does).
  bool bind_arguments(Frame& chip) const;
  // Runs the chip program on the device of `chip` (the frame as the rank sees it), as launch
  // `k` of the rank in this dispatch: what a rank's thread runs, here or in a worker process;
  // `bound`: bind_arguments ran already.
  void run_chip(Frame& chip, int rank, int k, bool bound = false) const;

 protected:
  void exec(Frame& frame) const override;

 private:
  ExprPtr rank_;
  std::string name_;
  Block body_;
  int index_;
  size_t bindings_;
  std::vector<int> reads_;
  std::vector<int> bound_reads_;
  std::vector<bool> params_written_;
};

// The host waits for every chip program it launched (and reports the first that failed).
class JoinStmt : public Stmt {
 public:
  explicit JoinStmt(int line) : Stmt(line) {}

 protected:
  void exec(Frame& frame) const override;
};

class AtStmt : public Stmt {
 public:
  // `dumps`: the slots whose tensors the task dumps (pl.dump_tag / dumps=).
  AtStmt(int line, std::string name, Block body, std::vector<int> dumps = {})
      : Stmt(line), name_(std::move(name)), body_(std::move(body)), dumps_(std::move(dumps)) {}
  // The slots the region defines that are read after it ends (sim/region_outputs.h): the
  // tiles it hands on, which the task graph records as its outputs.
  void set_outputs(std::vector<int> slots) { outputs_ = std::move(slots); }
  // The region as a submitted task (sim/task_ids.h): the slot its id is bound to (-1: none),
  // its deps= and whether a pl.manual_scope holds it.
  void set_task(int tid, std::vector<ExprPtr> deps, bool manual) {
    tid_ = tid;
    deps_ = std::move(deps);
    manual_ = manual;
  }
  // The slots of its no_dep_args= tensors: their windows give the task no edges.
  void set_no_dep(std::vector<int> slots) { no_dep_ = std::move(slots); }

 protected:
  void exec(Frame& frame) const override;

 private:
  void run_recorded(Frame& frame, TaskRecorder& recorder) const;

  std::string name_;
  Block body_;
  std::vector<int> dumps_;
  std::vector<int> outputs_;
  int tid_ = -1;
  std::vector<ExprPtr> deps_;
  bool manual_ = false;
  std::vector<int> no_dep_;
};

class AssignStmt : public Stmt {
 public:
  AssignStmt(int line, int slot, ExprPtr value) : Stmt(line), slot_(slot), value_(std::move(value)) {}
  int slot() const { return slot_; }
  // A call the loader moved past this statement into a later one (sim/temp_inlining.h):
  // when this one fails, that call runs first, so that its failure is the one reported.
  void set_folded(const Expr* call) { folded_ = call; }

 protected:
  void exec(Frame& frame) const override;

 private:
  int slot_;
  ExprPtr value_;
  const Expr* folded_ = nullptr;
};

class UnpackStmt : public Stmt {
 public:
  UnpackStmt(int line, std::vector<int> slots, ExprPtr value)
      : Stmt(line), slots_(std::move(slots)), value_(std::move(value)) {}

 protected:
  void exec(Frame& frame) const override;

 private:
  std::vector<int> slots_;
  ExprPtr value_;
};

class WriteStmt : public Stmt {
 public:
  WriteStmt(int line, int target, std::vector<IndexItem> items, std::string text, ExprPtr value);
  int target() const { return target_; }
  const std::vector<IndexItem>& items() const { return items_; }
  const std::string& text() const { return text_; }
  const Expr& value() const { return *value_; }
  // The call folded into the value from the statement before (sim/temp_inlining.h), which
  // ran before this target was resolved: when the target fails, that call's own failure,
  // if it has one, is the one reported, as when the two were apart.
  void set_folded(const Expr* call) { folded_ = call; }

 protected:
  void exec(Frame& frame) const override;

 private:
  int target_;
  std::vector<IndexItem> items_;
  std::string text_;
  ExprPtr value_;
  const Expr* folded_ = nullptr;
  int value_slot_ = -1;  // the value's variable when it is a plain one (x[...] = t)
};

class ExprStmt : public Stmt {
 public:
  ExprStmt(int line, ExprPtr value) : Stmt(line), value_(std::move(value)) {}

 protected:
  void exec(Frame& frame) const override { value_->eval(frame); }

 private:
  ExprPtr value_;
};

class IfStmt : public Stmt {
 public:
  IfStmt(int line, ExprPtr cond, Block then_block, Block else_block)
      : Stmt(line), cond_(std::move(cond)), then_(std::move(then_block)), else_(std::move(else_block)) {}

 protected:
  void exec(Frame& frame) const override;

 private:
  ExprPtr cond_;
  Block then_, else_;
};

class ReturnStmt : public Stmt {
 public:
  ReturnStmt(int line, std::vector<ExprPtr> values) : Stmt(line), values_(std::move(values)) {}

 protected:
  void exec(Frame& frame) const override;

 private:
  std::vector<ExprPtr> values_;
};

}  // namespace pypto_golden::sim
