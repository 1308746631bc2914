// What the chip swimlane records (RunConfig.enable_chip_swimlane): one entry per executed
// task (a pl.at region), with its device, the worker lane that ran it and its start and end.
// Attached to a device for one dispatch (DispatchOptions::recorder); off, it costs a null test.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace pypto_golden::sim {

struct TaskRecord {
  const std::string* name = nullptr;  // the region's task name (owned by the loaded program)
  int line = 0;                       // the region's source line
  int device = 0;
  int lane = 0;  // the thread that ran it, numbered in the order threads first ran a task
  int64_t start_ns = 0;  // since the recorder was made
  int64_t end_ns = 0;
  int depth = 0;  // regions nested in a region of the same lane (0: outermost)
};

class TaskRecorder {
 public:
  TaskRecorder();
  ~TaskRecorder();

  int64_t now_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count();
  }
  // A region called `name` at `line` that ran on this thread from start_ns to now. Each
  // thread appends to its own lane: no lock after a thread's first task.
  void record(const std::string& name, int line, int device, int64_t start_ns, int depth);

  // Every task, by start time; call once the dispatch has ended (no thread still recording).
  std::vector<TaskRecord> tasks() const;

 private:
  struct Lane {
    int id = 0;
    std::vector<TaskRecord> tasks;
  };
  Lane& lane();

  std::chrono::steady_clock::time_point origin_;
  uint64_t serial_;  // tells this recorder from an earlier one at the same address
  std::mutex mu_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace pypto_golden::sim
