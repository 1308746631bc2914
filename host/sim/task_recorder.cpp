#include "sim/task_recorder.h"

#include <algorithm>

namespace pypto_golden::sim {

void TaskRecorder::record(const std::string& name, int line, int device, int64_t start_ns, int depth) {
  const int64_t end_ns = now_ns();
  std::lock_guard<std::mutex> lock(mu_);
  auto lane = lanes_.emplace(std::this_thread::get_id(), static_cast<int>(lanes_.size())).first->second;
  tasks_.push_back({name, line, device, lane, start_ns, end_ns, depth});
}

std::vector<TaskRecord> TaskRecorder::tasks() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TaskRecord> sorted = tasks_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.depth < b.depth;
  });
  return sorted;
}

}  // namespace pypto_golden::sim
