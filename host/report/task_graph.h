// The task dependency graph of a recorded dispatch (RunConfig.enable_dep_gen), derived as
// PyPTO's runtime derives it: a task depends on each earlier task that last wrote a window
// overlapping one it reads or writes (read-after-write and write-after-write; a later write
// that covers an earlier one supersedes it), except for tasks in a pl.manual_scope, which
// neither look up nor leave windows; and on each task its deps= names. Its nodes are the
// tasks as PyPTO submits them: an spmd launch is one node, whose blocks are several records.
#pragma once

#include "sim/task_recorder.h"

#include <vector>

namespace pypto_golden {

struct TaskEdge {
  size_t pred = 0, succ = 0;  // task numbers (indexes into the recorded tasks, or the graph's nodes)
  int tensor = 0;             // the tensor the windows share (-1: an explicit edge)
  bool covered = false;       // the successor's window lies wholly inside the predecessor's
  bool explicit_dep = false;  // from deps=
};

// The edges between `tasks` (as TaskRecorder::tasks() gives them) from their windows, by
// successor then predecessor; one per (pred, succ, tensor). `untracked[k]`: task k's windows
// are left out (a task of a pl.manual_scope); empty: none is.
std::vector<TaskEdge> task_edges(const std::vector<sim::TaskRecord>& tasks,
                                 const std::vector<sim::RecordedTensor>& tensors,
                                 const std::vector<bool>& untracked = {});

struct TaskNode {
  const sim::SubmitRecord* submit = nullptr;  // null: a record that names no submit
  std::vector<size_t> records;                // the records that ran it, by start
  // Its windows: a region's own; a launch's, per tensor and direction, the smallest window
  // holding its blocks' (a box of the tensor's shape, else a span of its storage).
  std::vector<sim::TaskWindow> args;
};

struct TaskGraph {
  std::vector<TaskNode> nodes;        // by submission (joins are not nodes)
  std::vector<TaskEdge> edges;        // between nodes: from windows, then deps=
  std::vector<TaskEdge> record_edges; // between records, from windows
};

// The graph of `tasks` and the `submits` they ran (TaskRecorder::submits()); a window of an
// alias's source is taken as the alias's window of its target (TaskRecorder::aliases()).
TaskGraph task_graph(const std::vector<sim::TaskRecord>& tasks, const std::vector<sim::SubmitRecord>& submits,
                     const std::vector<sim::RecordedTensor>& tensors,
                     const std::vector<sim::TaskRecorder::TensorAlias>& aliases = {});

}  // namespace pypto_golden
