// Task ids (pl.TASK_ID) at run time. A task id is an int64: -1 is "no task" (None,
// pl.system.task_invalid()). While the task graph is recorded, each submitted task gets a
// fresh id from the recorder (TaskRecorder::record, ::submit), so that deps= can name one
// execution of a task site; otherwise a site's id is the constant the compiler gave it.
#pragma once

#include "sim/nodes.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

class Device;
class TaskRecorder;

// The recorder of `device` (may be null) when it records the task graph (windows on), else null.
TaskRecorder* graph_recorder(const Device* device);
// The same for `frame`'s device.
TaskRecorder* graph_recorder(const Frame& frame);

// The ids a deps= entry names: a task id, each element of a TASK_ID array; nothing for None
// or "no task". Appended to `out`.
void collect_task_ids(const Value& v, std::vector<int64_t>& out);

// Evaluates a deps= list (its array reads are bounds-checked whether or not anything records
// them) into the ids it names.
std::vector<int64_t> evaluate_deps(const std::vector<ExprPtr>& deps, Frame& frame);

// Sets frame.launch, the spmd launch the frame's regions are blocks of, while it lives.
class LaunchScope {
 public:
  LaunchScope(Frame& frame, int64_t launch) : frame_(frame), saved_(frame.launch) { frame.launch = launch; }
  ~LaunchScope() { frame_.launch = saved_; }
  LaunchScope(const LaunchScope&) = delete;
  LaunchScope& operator=(const LaunchScope&) = delete;

 private:
  Frame& frame_;
  int64_t saved_;
};

// The task ids a pl.parallel / pl.spmd loop's iterations bind to names read after the loop
// (IR "joins": slot, then the id the slot holds when nothing records the graph). While the
// graph is recorded, each slot is then bound to a join of the iterations' ids: a later
// deps= on it waits for every iteration's task, as PyPTO's array carry of a TaskId does.
class TaskIdJoins {
 public:
  TaskIdJoins(const std::vector<std::pair<int, int64_t>>& joins, const Frame& frame, int64_t trips);
  // When iteration `k` has run in `local`.
  void collect(int64_t k, const Frame& local);
  // When the loop has run: binds the slots in `frame`.
  void bind(Frame& frame, int line) const;

 private:
  const std::vector<std::pair<int, int64_t>>& joins_;
  TaskRecorder* recorder_;
  std::vector<int64_t> ids_;  // per iteration, per join
};

}  // namespace pypto_golden::sim
