// The windows of outside tensors a running task reads and writes, for the task graph
// (RunConfig.enable_dep_gen). A task opens a TaskWindowScope; ops that read or write a
// window of a tensor call note_read / note_write, which record it when a recording scope
// is open on this thread and the tensor is one from outside the task (a variable of the
// frame the task started in: a parameter or a tensor of the orchestration). Tiles the task
// makes for itself are not recorded.
#pragma once

#include "sim/task_recorder.h"

#include <ATen/core/Tensor.h>

#include <utility>
#include <vector>

namespace pypto_golden::sim {

struct Frame;

class TaskWindowScope {
 public:
  // Opens the scope of the task at `depth` running in `frame`; inactive when the recorder
  // does not record windows. `dumps`: the frame slots whose tensors the task dumps
  // (pl.dump_tag / dumps=); a nested task also dumps what its enclosing one does. `no_dep`:
  // the slots of its no_dep_args= tensors, whose windows give no edges.
  TaskWindowScope(TaskRecorder& recorder, const Frame& frame, int depth, const std::vector<int>& dumps,
                  const std::vector<int>& no_dep = {});
  ~TaskWindowScope();
  TaskWindowScope(const TaskWindowScope&) = delete;
  TaskWindowScope& operator=(const TaskWindowScope&) = delete;

  // TaskRecorder::record() of the task, on the lane the scope holds (active scopes only).
  int64_t record(const std::string& name, int line, int device, TaskRecorder::Start start, int64_t end_bytes,
                 const TaskRecorder::Submit& submit) {
    return recorder_.record_in(*lane_, name, line, device, start, end_bytes, depth_, first_, submit);
  }
  // When the task's body has run: the tiles it made and hands on, held by `slots` (the
  // region's outputs, sim/region_outputs.h), each recorded as a whole window it wrote. A
  // slot that holds an outside tensor (a parameter, a view of one) is left out: its writes
  // were recorded as they happened.
  void note_outputs(const std::vector<int>& slots);

 private:
  friend void note_window(const at::Tensor&, at::IntArrayRef, at::IntArrayRef, bool);
  void note(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write);

  using Seen = TaskRecorder::SeenStorage;
  Seen look_up(const at::Tensor& base, const void* data);
  // The lowest frame slot that held `data`'s storage when the task started, or -1: the
  // storage is the task's own.
  int outside_slot(const void* data);
  // An outermost task that dumps nothing: the storages it saw hold for the next task of its
  // lane with the same outside variables (the same lane tensors; a task's own tiles are not
  // in the list, whatever address they get).
  bool carries_seen() const {
    return !outer_ && marked_begin_ == marked_end_ && untracked_begin_ == untracked_end_;
  }

  TaskRecorder& recorder_;
  TaskRecorder::Lane* lane_ = nullptr;  // this thread's: looked up once per task, not per window
  const Frame& frame_;
  int depth_;
  uint32_t first_ = 0;
  bool active_;
  TaskWindowScope* outer_;
  bool outside_sorted_ = false;
  // The storages of the task's last two windows: most windows repeat one of them (a read
  // and a write, task after task), and skip the lookups. A task that starts with the same
  // outside variables as the thread's task before starts with that one's.
  Seen seen_[2];
  int next_seen_ = 0;
  // This scope's parts of its lane's lists of outside tensors and of dumped storages.
  size_t outside_begin_ = 0, outside_end_ = 0;
  size_t marked_begin_ = 0, marked_end_ = 0;
  size_t untracked_begin_ = 0, untracked_end_ = 0;
};

// Whether a task's scope is open on this thread (false in the orchestration, between tasks).
bool in_task();

// `base`'s window at `offset` (over its leading axes) of `extents` (missing trailing axes:
// whole), read or written by the task open on this thread, if any.
void note_window(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write);
inline void note_read(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents) {
  note_window(base, offset, extents, false);
}
inline void note_write(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents) {
  note_window(base, offset, extents, true);
}

}  // namespace pypto_golden::sim
