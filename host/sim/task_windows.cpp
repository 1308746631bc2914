#include "sim/task_windows.h"

#include "sim/nodes.h"
#include "sim/task_recorder.h"

#include <algorithm>

namespace pypto_golden::sim {
namespace {

thread_local TaskWindowScope* open_scope = nullptr;

}  // namespace

TaskWindowScope::TaskWindowScope(TaskRecorder& recorder, const Frame& frame, int depth)
    : recorder_(recorder), frame_(frame), depth_(depth), active_(recorder.windows()), outer_(open_scope) {
  if (!active_) return;
  first_ = recorder.next_window();
  open_scope = this;
  // The variables in force when the task starts; a tile the task makes later is its own.
  for (size_t k = 0; k < frame.slots.size(); ++k) {
    const Value& v = frame.slots[k];
    if (v.kind == Value::Kind::Tensor && v.tensor.defined() && v.tensor.has_storage() && v.tensor.storage().data())
      outside_.push_back({v.tensor.storage().data(), static_cast<int>(k)});
  }
}

TaskWindowScope::~TaskWindowScope() {
  if (active_) open_scope = outer_;
}

void TaskWindowScope::note(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write) {
  if (!base.defined() || !base.has_storage() || !base.storage().data()) return;
  if (!outside_sorted_) {  // on the task's first window: tasks that touch none pay no sort
    outside_sorted_ = true;
    std::stable_sort(outside_.begin(), outside_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  const void* data = base.storage().data();
  auto it = std::lower_bound(outside_.begin(), outside_.end(), data,
                             [](const auto& entry, const void* d) { return entry.first < d; });
  if (it == outside_.end() || it->first != data) return;  // a tile of the task's own
  const int slot = it->second;
  // The slot may hold another value by now; the tensor it held named this storage.
  const Value& held = frame_.slots[static_cast<size_t>(slot)];
  const bool same = held.kind == Value::Kind::Tensor && held.tensor.defined() && held.tensor.has_storage() &&
                    held.tensor.storage().data() == data;
  recorder_.note_window(base, offset, extents, write, depth_, same ? held.tensor : base,
                        frame_.function->slot_names[static_cast<size_t>(slot)], slot);
}

void note_window(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write) {
  if (open_scope) open_scope->note(base, offset, extents, write);
}

}  // namespace pypto_golden::sim
