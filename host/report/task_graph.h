// The task dependency graph of a recorded dispatch (RunConfig.enable_dep_gen), derived as
// PyPTO's runtime derives it in its automatic scope: a task depends on each earlier task
// that last wrote a window overlapping one it reads or writes (read-after-write and
// write-after-write; a later write that covers an earlier one supersedes it).
#pragma once

#include "sim/task_recorder.h"

#include <vector>

namespace pypto_golden {

struct TaskEdge {
  size_t pred = 0, succ = 0;  // task numbers (indexes into the recorded tasks)
  int tensor = 0;             // the tensor the windows share
  bool covered = false;       // the successor's window lies wholly inside the predecessor's
};

// The edges between `tasks` (as TaskRecorder::tasks() gives them), by successor then
// predecessor; one per (pred, succ, tensor).
std::vector<TaskEdge> task_edges(const std::vector<sim::TaskRecord>& tasks,
                                 const std::vector<sim::RecordedTensor>& tensors);

}  // namespace pypto_golden
