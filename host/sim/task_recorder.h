// What the chip swimlane records (RunConfig.enable_chip_swimlane): one entry per executed
// task (a pl.at region), with its device, the worker lane that ran it and its start and end.
// Attached to a device for one dispatch (DispatchOptions::recorder); off, it costs a null test.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace pypto_golden::sim {

struct TaskRecord {
  std::string name;  // the region's name_hint, or "" (the writer names it as PyPTO's outliner)
  int line = 0;      // the region's source line
  int device = 0;
  int lane = 0;      // the thread that ran it, numbered in the order threads first ran a task
  int64_t start_ns = 0;  // since the recorder was made
  int64_t end_ns = 0;
  int depth = 0;  // regions nested in a region of the same lane (0: outermost)
};

class TaskRecorder {
 public:
  TaskRecorder() : origin_(std::chrono::steady_clock::now()) {}

  int64_t now_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count();
  }
  // A region of `name` at `line` that ran on this thread from start_ns to now.
  void record(const std::string& name, int line, int device, int64_t start_ns, int depth);

  std::vector<TaskRecord> tasks() const;

 private:
  std::chrono::steady_clock::time_point origin_;
  mutable std::mutex mu_;
  std::unordered_map<std::thread::id, int> lanes_;
  std::vector<TaskRecord> tasks_;
};

}  // namespace pypto_golden::sim
