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
  // (pl.dump_tag / dumps=); a nested task also dumps what its enclosing one does.
  TaskWindowScope(TaskRecorder& recorder, const Frame& frame, int depth, const std::vector<int>& dumps);
  ~TaskWindowScope();
  TaskWindowScope(const TaskWindowScope&) = delete;
  TaskWindowScope& operator=(const TaskWindowScope&) = delete;

  uint32_t first_window() const { return first_; }

 private:
  friend void note_window(const at::Tensor&, at::IntArrayRef, at::IntArrayRef, bool);
  void note(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write);

  TaskRecorder& recorder_;
  TaskRecorder::Lane* lane_ = nullptr;  // this thread's: looked up once per task, not per window
  const Frame& frame_;
  int depth_;
  uint32_t first_ = 0;
  bool active_;
  TaskWindowScope* outer_;
  bool outside_sorted_ = false;
  std::vector<std::pair<const void*, int>>* outside_ = nullptr;  // the thread's lists below
  std::vector<const void*>* marked_ = nullptr;
  // This scope's part of the thread's list of outside tensors (storage -> frame slot holding
  // it at the start): one list per thread, reused task after task, so that recording a task
  // allocates nothing; a nested scope appends after its parent's part and cuts it off again.
  size_t outside_begin_ = 0, outside_end_ = 0;
  // Likewise the storages the task dumps, when the recorder keeps marked tensors' data.
  size_t marked_begin_ = 0, marked_end_ = 0;
};

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
