#include "sim/task_recorder.h"

#include "sim/hot_thread_local.h"
#include "sim/strided_view.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <tuple>

namespace pypto_golden::sim {
namespace {

std::atomic<uint64_t> next_serial{1};

// This thread's lane of the recorder it last recorded into.
struct LaneCache {
  uint64_t serial = 0;
  void* lane = nullptr;
};
PYPTO_HOT_THREAD_LOCAL LaneCache cache;

// The chip launch this thread runs (ChipLaunchScope).
struct Launch {
  int rank = -1, index = 0;
  const std::string* program = nullptr;
};
PYPTO_HOT_THREAD_LOCAL Launch current_launch;

// A tensor that is its whole storage, contiguous from its start: its shape names the buffer.
bool is_whole(const at::Tensor& t) {
  return t.storage_offset() == 0 && t.is_contiguous() &&
         static_cast<size_t>(t.numel()) * t.element_size() == t.storage().nbytes();
}

}  // namespace

ChipLaunchScope::ChipLaunchScope(int rank, int launch, const std::string& program)
    : rank_(current_launch.rank), launch_(current_launch.index), program_(current_launch.program) {
  current_launch = {rank, launch, &program};
}

ChipLaunchScope::~ChipLaunchScope() { current_launch = {rank_, launch_, program_}; }

TaskRecorder::TaskRecorder(bool windows, Payloads payloads)
    : origin_unix_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count()),
      serial_(next_serial++),
      windows_(windows || payloads != Payloads::None), payloads_(payloads) {}

TaskRecorder::~TaskRecorder() = default;

TaskRecorder::Lane& TaskRecorder::lane() {
  if (cache.serial == serial_) return *static_cast<Lane*>(cache.lane);
  std::lock_guard<std::mutex> lock(mu_);
  lanes_.push_back(std::make_unique<Lane>());
  lanes_.back()->id = static_cast<int>(lanes_.size()) - 1;
  cache = {serial_, lanes_.back().get()};
  return *lanes_.back();
}

int64_t TaskRecorder::record(const std::string& name, int line, int device, Start start, int64_t end_bytes, int depth,
                             uint32_t first_window, const Submit& submit) {
  return record_in(lane(), name, line, device, start, end_bytes, depth, first_window, submit);
}

int64_t TaskRecorder::record_in(Lane& l, const std::string& name, int line, int device, Start start, int64_t end_bytes,
                                int depth, uint32_t first_window, const Submit& submit) {
  const int64_t end = now();
  if (payloads_ != Payloads::None)  // what the task wrote, now that it has ended
    for (size_t w = first_window; w < l.windows.size(); ++w)
      if ((l.windows[w].flags & kWrite) && l.windows[w].depth == depth && l.windows[w].payload >= 0) {
        at::Tensor& p = l.payloads[static_cast<size_t>(l.windows[w].payload)];
        p = p.clone();
      }
  const bool own = windows_ && submit.launch == 0;
  const int64_t id = own ? new_id(l) : submit.launch;
  const auto first_dep = static_cast<uint32_t>(l.deps.size());
  if (own && submit.deps)
    for (const int64_t d : *submit.deps) l.deps.push_back(d);
  l.tasks.push_back({&name, current_launch.program, start.ticks, end, start.bytes, end_bytes, line, device, depth,
                     current_launch.rank, current_launch.index, first_window, static_cast<uint32_t>(l.windows.size()), id,
                     first_dep, static_cast<uint32_t>(l.deps.size()), own, submit.manual});
  return id;
}

int64_t TaskRecorder::new_id(Lane& l) { return (static_cast<int64_t>(l.id) + 1) << 32 | l.next_id++; }

int64_t TaskRecorder::submit(SubmitKind kind, int line, int device, int64_t block_num, bool manual,
                             const std::vector<int64_t>& deps) {
  Lane& l = lane();
  const int64_t id = new_id(l);
  const auto first = static_cast<uint32_t>(l.deps.size());
  for (const int64_t d : deps) l.deps.push_back(d);
  l.submits.push_back({id, now(), block_num, line, device, current_launch.rank, current_launch.index, first,
                       static_cast<uint32_t>(l.deps.size()), kind, manual});
  return id;
}

void TaskRecorder::mark_manual_dep(const at::Tensor& t) {
  if (!storage_start(t)) return;
  std::lock_guard<std::mutex> lock(mu_);
  manual_dep_.push_back(t.storage());
}

bool TaskRecorder::is_manual_dep(const void* data) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : manual_dep_)
    if (s.data() == data) return true;
  return false;
}

std::vector<SubmitRecord> TaskRecorder::submits() const {
  const double ns_per_tick = clock_.ns_per_tick();
  std::vector<SubmitRecord> all;
  for (const auto& lp : lanes_) {
    const Lane& l = *lp;
    for (size_t k = 0; k < l.submits.size(); ++k) {
      const LaneSubmit& s = l.submits[k];
      SubmitRecord r{s.id, s.kind, s.line, s.device, static_cast<int64_t>(static_cast<double>(s.ticks) * ns_per_tick),
                     s.block_num, s.manual, {}, s.rank, s.launch};
      for (uint32_t d = s.first_dep; d < s.end_dep; ++d) r.deps.push_back(l.deps[d]);
      all.push_back(std::move(r));
    }
    for (size_t k = 0; k < l.tasks.size(); ++k) {  // regions: submitted when they started
      const LaneTask& t = l.tasks[k];
      if (!t.own_submit) continue;
      SubmitRecord r{t.submit, SubmitKind::Region, t.line, t.device,
                     static_cast<int64_t>(static_cast<double>(t.start_ticks) * ns_per_tick), 1, t.manual, {}, t.rank,
                     t.launch};
      for (uint32_t d = t.first_dep; d < t.end_dep; ++d) r.deps.push_back(l.deps[d]);
      all.push_back(std::move(r));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const SubmitRecord& a, const SubmitRecord& b) { return a.at_ns < b.at_ns; });
  return all;
}

uint32_t TaskRecorder::lane_tensor(Lane& l, const at::Tensor& base, const at::Tensor& held, const std::string& name,
                                   int slot) {
  const void* data = storage_start(base);
  uint32_t tensor = 0;
  while (tensor < l.tensors.size() && l.tensors[tensor].data != data) ++tensor;
  if (tensor == l.tensors.size()) {  // the lane's first window of this tensor
    // The slot may hold another value by now; the tensor it held named this storage.
    const at::Tensor& whole = storage_start(held) == data ? held : base;
    RecordedTensor info{name, whole.scalar_type(), {}, static_cast<int64_t>(base.storage().nbytes() / base.element_size()),
                        is_manual_dep(data)};
    if (is_whole(whole))
      info.shape = whole.sizes().vec();
    else
      info.shape = {info.numel};
    l.tensors.push_back({data, base.storage(), slot, std::move(info)});
  }
  return tensor;
}

void TaskRecorder::note_window(Lane& l, uint32_t tensor, const at::Tensor& base, at::IntArrayRef offset,
                               at::IntArrayRef extents, bool write, int depth, bool marked, bool untracked) {
  const auto strides = base.strides();
  const auto sizes = base.sizes();
  int64_t start = base.storage_offset();
  const size_t rank = sizes.size();
  for (size_t k = 0; k < rank && k < offset.size(); ++k) start += offset[k] * strides[k];
  const auto extent = [&](size_t k) { return k < extents.size() ? extents[k] : sizes[k]; };
  // Tasks of a loop touch windows of one shape: most windows share the previous one's dims.
  bool same = rank > 0 && rank == l.last_rank;
  for (size_t k = 0; same && k < rank; ++k)
    same = l.last_dims_at[k] == extent(k) && l.last_dims_at[rank + k] == strides[k];
  if (!same && rank > 0) {
    l.last_dims = static_cast<uint32_t>(l.dims.append_contiguous(2 * rank));
    l.last_rank = static_cast<uint32_t>(rank);
    int64_t* dims = &l.dims[l.last_dims];
    l.last_dims_at = dims;
    for (size_t k = 0; k < rank; ++k) {
      dims[k] = extent(k);
      dims[rank + k] = strides[k];
    }
  }
  int32_t payload = -1;
  if (payloads_ == Payloads::All || (payloads_ == Payloads::Marked && marked)) {
    at::Tensor view = strided_view(base, at::IntArrayRef(rank ? l.last_dims_at : nullptr, rank), strides, start);
    payload = static_cast<int32_t>(l.payloads.size());
    l.payloads.push_back(write ? view : view.clone());
  }
  l.windows.push_back({tensor, rank ? l.last_dims : 0, start, payload, static_cast<int16_t>(depth),
                       static_cast<uint8_t>(rank), static_cast<uint8_t>((write ? kWrite : 0) | (untracked ? kUntracked : 0))});
}

std::vector<std::vector<int>> TaskRecorder::tensor_ids(std::vector<RecordedTensor>* tensors,
                                                       std::map<const void*, int>* by_storage) const {
  // One id per storage, numbered by the lowest variable slot that named it (parameters
  // first), then by name, then by where a lane first saw it (a loop's variable holds a new
  // tile each time): the same program gives the same numbering every run.
  using Key = std::tuple<int, std::string, size_t, size_t>;
  std::map<const void*, std::pair<Key, const RecordedTensor*>> by_data;
  for (size_t li = 0; li < lanes_.size(); ++li)
    for (size_t ti = 0; ti < lanes_[li]->tensors.size(); ++ti) {
      const LaneTensor& t = lanes_[li]->tensors[ti];
      Key key{t.slot, t.info.name, li, ti};
      auto [it, fresh] = by_data.try_emplace(t.data, key, &t.info);
      if (!fresh && key < it->second.first) it->second = {std::move(key), &t.info};
    }
  std::vector<std::pair<const Key*, std::pair<const void*, const RecordedTensor*>>> order;
  for (const auto& [data, entry] : by_data) order.push_back({&entry.first, {data, entry.second}});
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  std::map<const void*, int> id;
  for (size_t k = 0; k < order.size(); ++k) {
    id[order[k].second.first] = static_cast<int>(k);
    if (tensors) tensors->push_back(*order[k].second.second);
  }
  std::vector<std::vector<int>> ids;
  for (const auto& l : lanes_) {
    ids.emplace_back();
    for (const auto& t : l->tensors) ids.back().push_back(id[t.data]);
  }
  if (by_storage) *by_storage = std::move(id);
  return ids;
}

void TaskRecorder::note_alias(const at::Tensor& source, const at::Tensor& target, at::IntArrayRef offset,
                              at::IntArrayRef extents) {
  if (!storage_start(source) || !storage_start(target)) return;
  Alias a{source.storage(), target.storage(), target.storage_offset(), {}, target.strides().vec()};
  for (size_t k = 0; k < static_cast<size_t>(target.dim()); ++k) {
    if (k < offset.size()) a.start_offset += offset[k] * target.stride(static_cast<int64_t>(k));
    a.shape.push_back(k < extents.size() ? extents[k] : target.size(static_cast<int64_t>(k)));
  }
  std::lock_guard<std::mutex> lock(mu_);
  aliases_.push_back(std::move(a));
}

std::vector<TaskRecorder::TensorAlias> TaskRecorder::aliases() const {
  std::map<const void*, int> id;
  tensor_ids(nullptr, &id);
  std::vector<TensorAlias> out;
  for (const auto& a : aliases_) {
    auto s = id.find(a.source.data());
    auto t = id.find(a.target.data());
    if (s == id.end() || t == id.end() || s->second == t->second) continue;
    out.push_back({s->second, {t->second, false, a.start_offset, a.shape, a.strides, {}}});
  }
  return out;
}

std::vector<TaskRecord> TaskRecorder::tasks() const {
  const std::vector<std::vector<int>> ids = tensor_ids(nullptr);
  const double ns_per_tick = clock_.ns_per_tick();
  const auto ns = [ns_per_tick](int64_t ticks) { return static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick); };
  std::vector<TaskRecord> all;
  for (size_t li = 0; li < lanes_.size(); ++li) {
    const Lane& l = *lanes_[li];
    for (size_t k = 0; k < l.tasks.size(); ++k) {
      const LaneTask& t = l.tasks[k];
      all.push_back({t.name, t.line, t.device, l.id, ns(t.start_ticks), ns(t.end_ticks), t.start_bytes, t.end_bytes, t.depth, t.rank,
                     t.launch, t.program, {}, t.submit});
      for (uint32_t w = t.first_window; w < t.end_window; ++w) {
        const Window& win = l.windows[w];
        if (win.depth != t.depth) continue;  // a nested task's own
        const int64_t* d = win.rank ? &l.dims[win.dims] : nullptr;
        all.back().windows.push_back({ids[li][win.tensor], (win.flags & kWrite) != 0, win.start_offset,
                                      std::vector<int64_t>(d, d + win.rank),
                                      std::vector<int64_t>(d + win.rank, d + 2 * win.rank),
                                      win.payload < 0 ? at::Tensor() : l.payloads[static_cast<size_t>(win.payload)],
                                      (win.flags & kUntracked) != 0});
      }
    }
  }
  for (TaskRecord t : foreign_) {
    t.lane += static_cast<int>(lanes_.size());
    all.push_back(std::move(t));
  }
  std::stable_sort(all.begin(), all.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.depth < b.depth;
  });
  return all;
}

void TaskRecorder::add_foreign(std::vector<ForeignTask> tasks) {
  std::lock_guard<std::mutex> lock(mu_);
  int lanes = 0;
  for (ForeignTask& t : tasks) {
    TaskRecord r = std::move(t.record);
    r.name = &*foreign_names_.insert(std::move(t.name)).first;
    r.program = t.program.empty() ? nullptr : &*foreign_names_.insert(std::move(t.program)).first;
    lanes = std::max(lanes, r.lane + 1);
    r.lane += foreign_lanes_;
    r.windows.clear();
    foreign_.push_back(std::move(r));
  }
  foreign_lanes_ += lanes;
}

std::vector<RecordedTensor> TaskRecorder::tensors() const {
  std::vector<RecordedTensor> out;
  tensor_ids(&out);
  return out;
}

}  // namespace pypto_golden::sim
