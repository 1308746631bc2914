// What the DFX outputs record of a dispatch: one entry per executed task (a pl.at region),
// with its device, the worker lane that ran it, its start and end and, when asked
// (dep_gen), the windows of outside tensors it read and wrote. Attached to a device for one
// dispatch (DispatchOptions::recorder); off, it costs a null test.
#pragma once

#include "sim/chunked_list.h"
#include "sim/task_clock.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Storage.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

// Where `t`'s storage starts, nullptr when it has none. Read without storage()'s virtual
// call: the recorder asks it several times for every window a task touches.
inline const void* storage_start(const at::Tensor& t) {
  if (!t.defined()) return nullptr;
  const c10::Storage& s = t.unsafeGetTensorImpl()->unsafe_storage();
  return s ? s.data() : nullptr;
}

// A tensor from outside the tasks (a parameter, or a tensor of the orchestration) that a
// task read or wrote; named after the variable that held it.
struct RecordedTensor {
  std::string name;
  c10::ScalarType dtype = c10::kFloat;
  std::vector<int64_t> shape;  // the variable's shape; [numel] when it was a view of a larger buffer
  int64_t numel = 0;           // elements of its storage
  bool manual_dep = false;     // made by pl.create_tensor(..., manual_dep=True): no edges from its windows
};

// One window a task read or wrote, as a strided view of the tensor's storage.
struct TaskWindow {
  int tensor = 0;  // index into TaskRecorder::tensors()
  bool write = false;
  int64_t start_offset = 0;  // elements from the storage's start
  std::vector<int64_t> shape, strides;
  at::Tensor data;  // with payloads on: what was read (when read) or written (at the task's end)
  bool untracked = false;  // of a no_dep_args= tensor of its task: no edges from it
};

// A task as PyPTO submits it, for the task graph (recorded with windows on): a region, an
// spmd launch (its blocks are the TaskRecords that name it), a pl.system.task_dummy barrier,
// or a join: the task ids the iterations of a pl.parallel loop bound to one name, which a
// later deps= means all of (not a task: an edge from it is one from each).
enum class SubmitKind : uint8_t { Region, Launch, Dummy, Join };
struct SubmitRecord {
  int64_t id = 0;  // the task id the kernel saw: (lane + 1) << 32 | the lane's count
  SubmitKind kind = SubmitKind::Region;
  int line = 0;
  int device = 0;
  int64_t at_ns = 0;  // when it was submitted
  int64_t block_num = 1;
  bool manual = false;         // submitted in a pl.manual_scope: no edges from its windows
  std::vector<int64_t> deps;   // deps= (Join: the iterations' ids), "no task" left out
  int rank = -1;               // as TaskRecord's
  int launch = 0;
};

struct TaskRecord {
  const std::string* name = nullptr;  // the region's task name (owned by the loaded program)
  int line = 0;                       // the region's source line
  int device = 0;
  int lane = 0;  // the thread that ran it, numbered in the order threads first ran a task
  int64_t start_ns = 0;  // since the recorder was made
  int64_t end_ns = 0;
  int64_t start_bytes = 0;  // the device's memory in use when it started and when it ended
  int64_t end_bytes = 0;
  int depth = 0;  // regions nested in a region of the same lane (0: outermost)
  // An L3 program's task: the chip launch it ran in (rank, the launch's number on that
  // rank, the chip program's name); rank -1 otherwise.
  int rank = -1;
  int launch = 0;
  const std::string* program = nullptr;
  std::vector<TaskWindow> windows;  // in the order the task touched them (with windows on)
  int64_t submit = 0;  // the SubmitRecord it ran (with windows on), else 0
};

// Marks the tasks this thread records while it lives as those of one chip launch.
class ChipLaunchScope {
 public:
  ChipLaunchScope(int rank, int launch, const std::string& program);
  ~ChipLaunchScope();
  ChipLaunchScope(const ChipLaunchScope&) = delete;
  ChipLaunchScope& operator=(const ChipLaunchScope&) = delete;

 private:
  int rank_, launch_;
  const std::string* program_;
};

class TaskRecorder {
 public:
  // Which windows' data the argument dump keeps: none, those of tensors a task was asked
  // to dump (pl.dump_tag / dumps=, enable_dump_args=1), or all (enable_dump_args=2).
  enum class Payloads { None, Marked, All };
  // `windows`: also record the windows each task reads and writes (for the task graph);
  // `payloads`: and a copy of the data of these (the argument dump).
  explicit TaskRecorder(bool windows = false, Payloads payloads = Payloads::None);
  ~TaskRecorder();

  bool windows() const { return windows_; }
  Payloads payloads() const { return payloads_; }
  // The recorder's clock, in TaskClock ticks (tasks() reports nanoseconds).
  int64_t now() const { return clock_.now(); }
  // When a task starts: the time and the device's memory in use.
  struct Start {
    int64_t ticks = 0;
    int64_t bytes = 0;
  };
  // A region called `name` at `line` that ran on this thread from `start` to now, when its
  // device had `end_bytes` of memory in use. Each thread appends to its own lane: no lock
  // after a thread's first task.
  // With windows on, `submit` says what it ran: a block of the launch `launch` (not 0), else
  // a region submitted when it started (its deps= and whether a manual scope holds it);
  // returns the region's fresh id (the launch's for a block), 0 with windows off.
  struct Submit {
    int64_t launch = 0;
    bool manual = false;
    const std::vector<int64_t>* deps = nullptr;
  };
  int64_t record(const std::string& name, int line, int device, Start start, int64_t end_bytes, int depth,
                 uint32_t first_window, const Submit& submit);
  // A launch, barrier or join submitted on this thread (with windows on): its id, fresh and
  // never -1 ("no task").
  int64_t submit(SubmitKind kind, int line, int device, int64_t block_num, bool manual,
                 const std::vector<int64_t>& deps);
  // Every submit, by time; call once the dispatch has ended.
  std::vector<SubmitRecord> submits() const;
  // pl.assemble(target, source, offset) ran outside any task (in the orchestration): PyPTO
  // makes `source` a view of `target`'s window [offset, offset + extents), which the task
  // graph then takes each window of `source` to be.
  void note_alias(const at::Tensor& source, const at::Tensor& target, at::IntArrayRef offset,
                  at::IntArrayRef extents);
  // Those windows, numbered as tensors() numbers tensors; ones whose source or target no
  // task touched are left out.
  struct TensorAlias {
    int source = 0;
    TaskWindow window;  // of the target
  };
  std::vector<TensorAlias> aliases() const;
  // `t`'s storage belongs to a tensor made with pl.create_tensor(..., manual_dep=True): the
  // task graph leaves its windows out, as PyPTO's runtime leaves them out of its tensor map.
  void mark_manual_dep(const at::Tensor& t);
  // Every task, by start time, with its windows; call once the dispatch has ended (no
  // thread still recording).
  std::vector<TaskRecord> tasks() const;
  // The tensors TaskWindow::tensor indexes, in the order of tasks()'s numbering.
  std::vector<RecordedTensor> tensors() const;

  // When the recorder was made, on the system clock: what puts another process's records
  // on this one's clock.
  int64_t origin_unix_ns() const { return origin_unix_ns_; }
  // Tasks another process recorded (a rank worker's; no windows), with their times on this
  // recorder's clock and its lanes numbered from 0: tasks() lists them too, on lanes after
  // this process's and those of earlier calls. `name` / `program` are set from the strings.
  struct ForeignTask {
    std::string name, program;
    TaskRecord record;
  };
  void add_foreign(std::vector<ForeignTask> tasks);

 private:
  friend class TaskWindowScope;  // holds its thread's lane for the task's windows
  struct Lane;
  // record() on `lane`, this thread's.
  int64_t record_in(Lane& lane, const std::string& name, int line, int device, Start start, int64_t end_bytes,
                    int depth, uint32_t first_window, const Submit& submit);

  // A lane's records are compact (24 and 80 bytes): a recorder of a million tasks writes
  // hundreds of MB, and every fresh page it faults in costs the dispatch.
  struct Window {
    uint32_t tensor;  // index into the lane's tensors
    uint32_t dims;    // shape then strides, in the lane's dims (shared with the previous window when equal)
    int64_t start_offset;
    int32_t payload;  // index into the lane's payloads, or -1
    int16_t depth;
    uint8_t rank;
    uint8_t flags;  // kWrite | kUntracked
  };
  static constexpr uint8_t kWrite = 1, kUntracked = 2;
  struct LaneTask {
    const std::string* name;
    const std::string* program;
    int64_t start_ticks, end_ticks, start_bytes, end_bytes;
    int32_t line, device, depth, rank, launch;
    uint32_t first_window, end_window;
    int64_t submit;              // its id (own_submit) or its launch's
    uint32_t first_dep, end_dep; // own_submit: its deps= in the lane's deps
    bool own_submit, manual;
  };
  struct LaneSubmit {
    int64_t id, ticks, block_num;
    int32_t line, device, rank, launch;
    uint32_t first_dep, end_dep;
    SubmitKind kind;
    bool manual;
  };
  struct LaneTensor {
    const void* data;
    c10::Storage keep;
    int slot;
    RecordedTensor info;
  };
  // The lane's index of the outside variable `name` (frame slot `slot`, which orders the
  // tensors in the report) whose storage `base` views, added on the lane's first window of
  // it. The variable now holds `held`: its tensor when it still views that storage. The
  // storage is kept until the recorder goes, so that no other tensor takes its address.
  uint32_t lane_tensor(Lane& lane, const at::Tensor& base, const at::Tensor& held, const std::string& name, int slot);
  // The window [offset, offset + extents) of `base` (over its leading axes; missing trailing
  // axes: whole) of lane tensor `tensor`, read or written by the task open at `depth` on the
  // thread of `lane`. `marked`: the task dumps this tensor (Payloads::Marked keeps the data
  // of these only); `untracked`: it is one of the task's no_dep_args=.
  void note_window(Lane& lane, uint32_t tensor, const at::Tensor& base, at::IntArrayRef offset,
                   at::IntArrayRef extents, bool write, int depth, bool marked, bool untracked = false);

  // What a task's TaskWindowScope found a storage to be: a lane tensor (kOwnTile: a tile of
  // the task's own), dumped or not.
  static constexpr uint32_t kOwnTile = UINT32_MAX;
  struct SeenStorage {
    const void* data = nullptr;
    uint32_t tensor = kOwnTile;
    bool marked = false;
    bool untracked = false;  // a no_dep_args= tensor of the task
  };
  // The open TaskWindowScopes' lists, kept in their lane (each thread has its own) and
  // reused task after task, so that recording a task allocates nothing.
  struct ScopeLists {
    // Outside tensors (storage -> frame slot holding it at the start) of the open scopes: a
    // nested scope appends after its parent's part and cuts it off again.
    std::vector<std::pair<const void*, int>> outside;
    // Likewise the storages the open scopes dump, when the recorder keeps marked tensors' data.
    std::vector<const void*> marked;
    // The storages of the open scopes' no_dep_args= tensors.
    std::vector<const void*> untracked;
    // The last outermost task's outside list (as built, before any sort) and the storages its
    // windows saw, which hold for a task that starts with the same list.
    std::vector<std::pair<const void*, int>> last_outside;
    bool last_valid = false;
    SeenStorage last_seen[2];
  };

  struct Lane {
    int id = 0;
    ScopeLists scopes;
    ChunkedList<LaneTask, 1024> tasks;
    ChunkedList<LaneSubmit, 1024> submits;  // launches, barriers, joins (a region's is its task)
    ChunkedList<int64_t> deps;  // the submits' deps, side by side
    uint32_t next_id = 0;       // of the lane's submits
    ChunkedList<Window> windows;
    ChunkedList<int64_t> dims;  // a window's shape then strides, side by side
    uint32_t last_dims = 0;     // the last window's, where it is, and its rank (0: none yet)
    const int64_t* last_dims_at = nullptr;
    uint32_t last_rank = 0;
    std::vector<LaneTensor> tensors;
    std::vector<at::Tensor> payloads;  // a read's copy; a write's view until its task ends, then its copy
  };
  Lane& lane();
  static int64_t new_id(Lane& l);
  bool is_manual_dep(const void* data);
  // The recorder-wide index of each tensor, per lane and lane tensor.
  std::vector<std::vector<int>> tensor_ids(std::vector<RecordedTensor>* tensors,
                                          std::map<const void*, int>* by_storage = nullptr) const;

  TaskClock clock_;
  int64_t origin_unix_ns_;
  uint64_t serial_;  // tells this recorder from an earlier one at the same address
  bool windows_;
  Payloads payloads_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<c10::Storage> manual_dep_;  // kept: no other tensor takes their addresses
  struct Alias {
    c10::Storage source, target;  // kept, as manual_dep_
    int64_t start_offset;
    std::vector<int64_t> shape, strides;
  };
  std::vector<Alias> aliases_;
  std::vector<TaskRecord> foreign_;      // add_foreign's, lanes numbered after this process's
  std::set<std::string> foreign_names_;  // their names and programs (a set: stable addresses)
  int foreign_lanes_ = 0;
};

}  // namespace pypto_golden::sim
