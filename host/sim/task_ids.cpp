#include "sim/task_ids.h"

#include "sim/device.h"
#include "sim/task_recorder.h"

namespace pypto_golden::sim {

TaskRecorder* graph_recorder(const Device* device) {
  TaskRecorder* r = device ? device->recorder() : nullptr;
  return r && r->windows() ? r : nullptr;
}

TaskRecorder* graph_recorder(const Frame& frame) { return graph_recorder(frame.device); }

void collect_task_ids(const Value& v, std::vector<int64_t>& out) {
  if (v.kind == Value::Kind::Int) {
    if (v.i >= 0) out.push_back(v.i);
  } else if (v.kind == Value::Kind::Tensor) {  // a TASK_ID array: each of its ids
    const at::Tensor t = v.tensor.to(at::kLong).contiguous();
    const int64_t* p = t.data_ptr<int64_t>();
    for (int64_t k = 0; k < t.numel(); ++k)
      if (p[k] >= 0) out.push_back(p[k]);
  } else if (v.kind == Value::Kind::List || v.kind == Value::Kind::Tuple) {
    for (const Value& item : *v.items) collect_task_ids(item, out);
  }
}

std::vector<int64_t> evaluate_deps(const std::vector<ExprPtr>& deps, Frame& frame) {
  std::vector<int64_t> ids;
  for (const auto& d : deps) collect_task_ids(d->eval(frame), ids);
  return ids;
}

TaskIdJoins::TaskIdJoins(const std::vector<std::pair<int, int64_t>>& joins, const Frame& frame, int64_t trips)
    : joins_(joins), recorder_(joins.empty() ? nullptr : graph_recorder(frame)) {
  if (recorder_) ids_.assign(static_cast<size_t>(trips) * joins.size(), -1);
}

void TaskIdJoins::collect(int64_t k, const Frame& local) {
  if (!recorder_) return;
  for (size_t j = 0; j < joins_.size(); ++j) {
    const Value& v = local.slots[static_cast<size_t>(joins_[j].first)];
    if (v.kind == Value::Kind::Int) ids_[static_cast<size_t>(k) * joins_.size() + j] = v.i;
  }
}

void TaskIdJoins::bind(Frame& frame, int line) const {
  for (size_t j = 0; j < joins_.size(); ++j) {
    int64_t id = joins_[j].second;
    if (recorder_) {
      std::vector<int64_t> each;
      for (size_t k = j; k < ids_.size(); k += joins_.size())
        if (ids_[k] >= 0) each.push_back(ids_[k]);
      id = recorder_->submit(SubmitKind::Join, line, frame.device->id(), 1, false, each);
    }
    frame.slots[static_cast<size_t>(joins_[j].first)] = Value::from_int(id);
  }
}

}  // namespace pypto_golden::sim
