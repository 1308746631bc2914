#include "sim/task_recorder.h"

#include <algorithm>
#include <atomic>

namespace pypto_golden::sim {
namespace {

std::atomic<uint64_t> next_serial{1};

// This thread's lane of the recorder it last recorded into.
struct LaneCache {
  uint64_t serial = 0;
  void* lane = nullptr;
};
thread_local LaneCache cache;

}  // namespace

TaskRecorder::TaskRecorder() : origin_(std::chrono::steady_clock::now()), serial_(next_serial++) {}

TaskRecorder::~TaskRecorder() = default;

TaskRecorder::Lane& TaskRecorder::lane() {
  if (cache.serial == serial_) return *static_cast<Lane*>(cache.lane);
  std::lock_guard<std::mutex> lock(mu_);
  lanes_.push_back(std::make_unique<Lane>());
  lanes_.back()->id = static_cast<int>(lanes_.size()) - 1;
  lanes_.back()->tasks.reserve(4096);
  cache = {serial_, lanes_.back().get()};
  return *lanes_.back();
}

void TaskRecorder::record(const std::string& name, int line, int device, int64_t start_ns, int depth) {
  const int64_t end_ns = now_ns();
  Lane& l = lane();
  l.tasks.push_back({&name, line, device, l.id, start_ns, end_ns, depth});
}

std::vector<TaskRecord> TaskRecorder::tasks() const {
  std::vector<TaskRecord> all;
  for (const auto& l : lanes_) all.insert(all.end(), l->tasks.begin(), l->tasks.end());
  std::stable_sort(all.begin(), all.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.depth < b.depth;
  });
  return all;
}

}  // namespace pypto_golden::sim
