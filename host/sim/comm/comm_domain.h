// The ranks of one L3 dispatch: their devices, the window buffers they share (through a
// WindowTransport), and the chip programs the host program launches on them.
#pragma once

#include "sim/comm/rank_queues.h"
#include "sim/comm/remote_ranks.h"
#include "sim/comm/window_transport.h"

#include <ATen/core/Tensor.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

class Device;
class LaunchStmt;
struct Frame;

// PYPTO_SIM_WAIT_TIMEOUT (seconds, default 5): how long a pld.system.wait may block before it
// is reported as never satisfied. Throws std::invalid_argument for a bad value.
std::chrono::milliseconds wait_timeout_from_env();

// Writes `value` into `dst`, a region of a window (adds it, `add`: pld's atomic=Add), as
// every rank does, whether the writer is in this process or sent it.
void write_window(const at::Tensor& dst, const at::Tensor& value, bool add);

class CommDomain {
 public:
  // devices[r] runs rank r; device_ids[r] is its id (for messages). `held`: the ranks whose
  // copy of every window buffer this process holds (empty: all of them); a worker process
  // holds its own rank's, and a host whose ranks are in workers rank 0's (the copy its
  // pld.window views are taken of), while a rank's device not here is null.
  CommDomain(std::vector<int> device_ids, std::vector<Device*> devices, std::chrono::milliseconds wait_timeout,
             std::vector<bool> held = {});
  ~CommDomain();  // stops waiting ranks and waits for every launched program
  CommDomain(const CommDomain&) = delete;
  CommDomain& operator=(const CommDomain&) = delete;

  int world_size() const { return static_cast<int>(devices_.size()); }
  int device_id(int rank) const { return device_ids_.at(static_cast<size_t>(rank)); }
  Device& device(int rank) const { return *devices_.at(static_cast<size_t>(rank)); }
  WindowTransport& transport() { return *transport_; }
  std::chrono::milliseconds wait_timeout() const { return wait_timeout_; }
  // "rank 1 (device 3)"
  std::string rank_name(int rank) const;

  // Starts a dispatch of the host program on this domain: its window allocations are matched,
  // in order, with the earlier dispatches' (persistent windows) and the ranks' busy time
  // starts from zero.
  void begin_dispatch();
  // pld.alloc_window_buffer: a zeroed buffer of `nbytes` on every rank; returns its id. A
  // later dispatch's n-th allocation gets the first dispatch's n-th buffer back as that
  // dispatch left it (kernels reset their own signals, as on hardware); throws KernelError
  // when its size differs.
  int allocate(int64_t nbytes);
  // The host's side of ranks in worker processes: launches, allocations and join go to them.
  void set_remote(std::unique_ptr<RemoteRanks> remote) { remote_ = std::move(remote); }
  bool remote() const { return remote_ != nullptr; }
  // When remote(): the dispatch's residents the ranks may keep (RemoteRanks::keep_residents).
  void keep_residents(const std::vector<RankResident>& residents) { remote_->keep_residents(residents); }
  // When remote(): RemoteRanks::record_tasks and collect_tasks.
  void record_remote_tasks() { remote_->record_tasks(); }
  void collect_remote_tasks(TaskRecorder& into) { remote_->collect_tasks(into); }
  // LaunchStmt's launch when remote(): `launch` (launch `k` of `rank`) with the host's frame
  // (`bound`: after LaunchStmt::bind_arguments).
  void launch_remote(int rank, const LaunchStmt& launch, int k, const Frame& frame, bool bound);
  // A worker's window traffic to the ranks it does not hold (owned by the caller).
  void set_peer_links(PeerLinks* links) { links_ = links; }

  // The window traffic of the pld ops: `local` is a region of `rank`'s window; its copy in
  // `peer`'s window is read into `out`, written from `value` (added to, `add`), or, for an
  // int32 slot, notified.
  void read_peer(const at::Tensor& local, int rank, int peer, const at::Tensor& out);
  void write_peer(const at::Tensor& local, int rank, int peer, const at::Tensor& value, bool add);
  void notify_peer(const at::Tensor& slot, int rank, int peer, int32_t value, NotifyOp op);
  // Where a view of `rank`'s window lies: its buffer and its byte offset there (buffer -1
  // when it lies in none).
  std::pair<int, int64_t> place_of(const at::Tensor& t, int rank);
  // The view of `rank`'s copy of `buffer` at byte `offset` with these sizes, strides and
  // dtype; KernelError when it runs past the buffer.
  at::Tensor view_at(int rank, int buffer, int64_t offset, at::IntArrayRef sizes, at::IntArrayRef strides,
                     c10::ScalarType dtype);

  // Per rank, the host time its chip programs ran since begin_dispatch() (microseconds);
  // valid after join().
  const std::vector<double>& busy_us() const { return busy_us_; }

  // pld.system.wait on `rank` waited on this signal slot (of window buffer `buffer`, at
  // `offsets` of the view) in this dispatch.
  void note_wait(int rank, int buffer, std::vector<int64_t> offsets, const int32_t* slot);
  // After join(): a slot waited on in this dispatch that is not zero any more, as
  // "rank 0 (device 0): the signal at [1, 0] (window buffer 1) holds 1"; "" when every one
  // was reset. Windows persist between launches, so such a slot satisfies the next
  // launch's wait early.
  std::string signal_left_set();
  // pld.window: a typed view of the buffer as the host program holds it (rank 0's copy);
  // launching a chip program rebinds it to the rank's own copy.
  at::Tensor window(int buffer, at::IntArrayRef shape, c10::ScalarType dtype);
  // The buffer a view of `rank`'s window lies in, -1 when it lies in none.
  int buffer_of(const at::Tensor& t, int rank);
  // The same view in `peer`'s copy of the window (`t` lies in `rank`'s window).
  at::Tensor peer_view(const at::Tensor& t, int rank, int peer);
  // What a chip program launched on `rank` sees of a host value: a view of a window (the host
  // holds rank 0's copy) as the same view of the rank's copy, any other tensor as it is.
  at::Tensor on_rank(const at::Tensor& t, int rank);

  // The number of this launch among `rank`'s launches in the dispatch (0, 1, ...): the d{k}
  // of the DFX outputs' rank{r}/d{k}. Called by the host program's thread only.
  int next_launch_index(int rank) { return launches_.at(static_cast<size_t>(rank))++; }
  // Runs `job` on the rank's thread after the rank's earlier jobs. A job that throws stops
  // the other ranks' waits; join() reports it.
  void launch(int rank, std::function<void()> job);
  // Waits for every launched job; rethrows the first failure (its message then "; on rank 1
  // (device 1)"), or Interrupted.
  void join();

 private:
  // The view `t` of buffer `b` at `rank`, in `peer`'s copy.
  at::Tensor translate(const at::Tensor& t, int b, int rank, int peer);
  // place_of, or KernelError naming `noun` ("tensor", "signal") when `t` lies in no window.
  std::pair<int, int64_t> window_place(const at::Tensor& t, int rank, const char* noun);

  std::vector<int> device_ids_;
  std::vector<Device*> devices_;
  std::chrono::milliseconds wait_timeout_;
  std::unique_ptr<WindowTransport> transport_;
  std::unique_ptr<RemoteRanks> remote_;
  PeerLinks* links_ = nullptr;
  RankQueues queues_;
  std::mutex failure_mu_;
  std::exception_ptr failure_;
  int failed_rank_ = -1;
  struct WaitedSlot {
    int rank;
    int buffer;
    std::vector<int64_t> offsets;
    const int32_t* slot;
  };
  mutable std::mutex waited_mu_;
  std::vector<WaitedSlot> waited_;  // in the order first waited on, each slot once
  int next_buffer_ = 0;          // the allocation this dispatch makes next
  std::vector<double> busy_us_;  // written by each rank's own thread only
  std::vector<int> launches_;    // per rank, launches so far this dispatch
};

}  // namespace pypto_golden::sim
