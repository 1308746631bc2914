#include "sim/task_windows.h"

#include "sim/hot_thread_local.h"
#include "sim/nodes.h"
#include "sim/task_recorder.h"

#include <algorithm>

namespace pypto_golden::sim {
namespace {

// Up to this many outside tensors a task's windows are looked up by a scan, not a sort.
constexpr std::ptrdiff_t kLinearSearch = 16;

PYPTO_HOT_THREAD_LOCAL TaskWindowScope* open_scope = nullptr;

const void* storage_of(const Value& v) {
  return v.kind == Value::Kind::Tensor ? storage_start(v.tensor) : nullptr;
}

}  // namespace

TaskWindowScope::TaskWindowScope(TaskRecorder& recorder, const Frame& frame, int depth, const std::vector<int>& dumps,
                                 const std::vector<int>& no_dep)
    : recorder_(recorder), frame_(frame), depth_(depth), active_(recorder.windows()), outer_(open_scope) {
  if (!active_) return;
  lane_ = &recorder.lane();
  first_ = static_cast<uint32_t>(lane_->windows.size());
  open_scope = this;
  auto& outside = lane_->scopes.outside;
  auto& marks = lane_->scopes.marked;
  // The variables in force when the task starts; a tile the task makes later is its own.
  outside_begin_ = outside.size();
  for (size_t k = 0; k < frame.slots.size(); ++k)
    if (const void* data = storage_of(frame.slots[k])) outside.push_back({data, static_cast<int>(k)});
  outside_end_ = outside.size();
  marked_begin_ = marks.size();
  if (recorder.payloads() == TaskRecorder::Payloads::Marked) {
    if (outer_)
      for (size_t k = outer_->marked_begin_; k < outer_->marked_end_; ++k) marks.push_back(marks[k]);
    for (const int slot : dumps)
      if (const void* data = storage_of(frame.slots[static_cast<size_t>(slot)])) marks.push_back(data);
  }
  marked_end_ = marks.size();
  if (!no_dep.empty()) {
    auto& untracked = lane_->scopes.untracked;
    untracked_begin_ = untracked.size();
    for (const int slot : no_dep)
      if (const void* data = storage_of(frame.slots[static_cast<size_t>(slot)])) untracked.push_back(data);
    untracked_end_ = untracked.size();
  }
  if (!carries_seen()) return;
  TaskRecorder::ScopeLists& lists = lane_->scopes;
  const auto begin = outside.begin() + static_cast<std::ptrdiff_t>(outside_begin_);
  const auto end = outside.begin() + static_cast<std::ptrdiff_t>(outside_end_);
  if (lists.last_valid && std::equal(begin, end, lists.last_outside.begin(), lists.last_outside.end())) {
    seen_[0] = lists.last_seen[0];
    seen_[1] = lists.last_seen[1];
  } else {
    lists.last_valid = false;  // until this task ends
    lists.last_outside.assign(begin, end);
  }
}

TaskWindowScope::~TaskWindowScope() {
  if (!active_) return;
  open_scope = outer_;
  TaskRecorder::ScopeLists& lists = lane_->scopes;
  if (carries_seen()) {
    lists.last_valid = true;
    lists.last_seen[0] = seen_[0];
    lists.last_seen[1] = seen_[1];
  }
  lists.outside.resize(outside_begin_);
  lists.marked.resize(marked_begin_);
  if (untracked_end_ != untracked_begin_) lists.untracked.resize(untracked_begin_);
}

void TaskWindowScope::note(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write) {
  const void* data = storage_start(base);
  if (!data) return;
  const Seen* seen = seen_[0].data == data ? &seen_[0] : seen_[1].data == data ? &seen_[1] : nullptr;
  if (!seen) {
    seen_[next_seen_] = look_up(base, data);
    seen = &seen_[next_seen_];
    next_seen_ ^= 1;
  }
  if (seen->tensor != TaskRecorder::kOwnTile)
    recorder_.note_window(*lane_, seen->tensor, base, offset, extents, write, depth_, seen->marked, seen->untracked);
}

int TaskWindowScope::outside_slot(const void* data) {
  const auto begin = lane_->scopes.outside.begin() + static_cast<std::ptrdiff_t>(outside_begin_);
  const auto end = lane_->scopes.outside.begin() + static_cast<std::ptrdiff_t>(outside_end_);
  auto it = end;
  if (end - begin <= kLinearSearch) {
    // Few outside tensors: a scan beats sorting them. Entries are in slot order, so the
    // first match is the lowest slot holding the storage, which names it.
    it = std::find_if(begin, end, [data](const auto& entry) { return entry.first == data; });
  } else {
    if (!outside_sorted_) {  // on the task's first window: tasks that touch none pay no sort
      outside_sorted_ = true;
      // By storage, then slot: the lowest slot holding a storage names it. (std::sort: a
      // stable sort would allocate a buffer for every task.)
      std::sort(begin, end);
    }
    it = std::lower_bound(begin, end, data, [](const auto& entry, const void* d) { return entry.first < d; });
  }
  return it == end || it->first != data ? -1 : it->second;
}

TaskWindowScope::Seen TaskWindowScope::look_up(const at::Tensor& base, const void* data) {
  const int slot = outside_slot(data);
  if (slot < 0) return {data, TaskRecorder::kOwnTile, false};
  const Value& held = frame_.slots[static_cast<size_t>(slot)];
  const auto marks_begin = lane_->scopes.marked.begin() + static_cast<std::ptrdiff_t>(marked_begin_);
  const auto marks_end = lane_->scopes.marked.begin() + static_cast<std::ptrdiff_t>(marked_end_);
  const bool marked = marks_begin != marks_end && std::find(marks_begin, marks_end, data) != marks_end;
  bool untracked = false;
  if (untracked_begin_ != untracked_end_) {
    const auto begin = lane_->scopes.untracked.begin() + static_cast<std::ptrdiff_t>(untracked_begin_);
    const auto end = lane_->scopes.untracked.begin() + static_cast<std::ptrdiff_t>(untracked_end_);
    untracked = std::find(begin, end, data) != end;
  }
  return {data,
          recorder_.lane_tensor(*lane_, base, held.kind == Value::Kind::Tensor ? held.tensor : base,
                                frame_.function->slot_names[static_cast<size_t>(slot)], slot),
          marked, untracked};
}

void TaskWindowScope::note_outputs(const std::vector<int>& slots) {
  if (!active_) return;
  for (size_t k = 0; k < slots.size(); ++k) {
    const int slot = slots[k];
    const Value& v = frame_.slots[static_cast<size_t>(slot)];
    const void* data = storage_of(v);
    if (!data || outside_slot(data) >= 0) continue;
    bool again = false;  // two variables holding one tile: its first names it
    for (size_t j = 0; j < k && !again; ++j) again = storage_of(frame_.slots[static_cast<size_t>(slots[j])]) == data;
    if (again) continue;
    const uint32_t tensor =
        recorder_.lane_tensor(*lane_, v.tensor, v.tensor, frame_.function->slot_names[static_cast<size_t>(slot)], slot);
    recorder_.note_window(*lane_, tensor, v.tensor, {}, {}, true, depth_, false);
  }
}

bool in_task() { return open_scope != nullptr; }

void note_window(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extents, bool write) {
  if (open_scope) open_scope->note(base, offset, extents, write);
}

}  // namespace pypto_golden::sim
