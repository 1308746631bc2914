// Ranks whose devices live in other processes (PYPTO_SIM_RANKS=process): what a CommDomain
// hands over to them. host/ranks implements both sides over a Gloo group.
#pragma once

#include "sim/comm/window_transport.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace pypto_golden::sim {

class CommDomain;
class LaunchStmt;
class TaskRecorder;
struct Frame;
struct Program;

// A resident tensor of an L3 dispatch that its host program reads only in chip launches
// (ParamInfo::read_on_host), by its storage: the ranks may keep what they are sent of it
// from one dispatch to the next, as cards keep a resident. `fresh`: this dispatch made it
// (the host reads it back after the dispatch).
struct RankResident {
  const void* storage = nullptr;
  bool fresh = true;
};

// The host's side: the chip programs it launches and the window buffers it allocates go to
// the rank workers.
class RemoteRanks {
 public:
  virtual ~RemoteRanks() = default;
  // A new zeroed window buffer of `nbytes` on every rank.
  virtual void allocate(int64_t nbytes) = 0;
  // The residents of the dispatch that starts (before its first launch).
  virtual void keep_residents(const std::vector<RankResident>& residents) = 0;
  // Starts `launch` (launch `k` of the rank in this dispatch) on `rank` with the host's
  // `frame` (`bound`: its argument bindings ran on the host); returns at once.
  virtual void launch(int rank, const LaunchStmt& launch, int k, const Frame& frame, bool bound) = 0;
  // Waits for every launch so far, with what they wrote of the host's tensors in place;
  // adds each rank's busy microseconds. The first failure comes back in `failure` with its
  // rank.
  virtual void join(std::vector<double>& busy_us, std::exception_ptr& failure, int& failed_rank) = 0;
  // After join(): CommDomain::signal_left_set() over the ranks' waits in this dispatch,
  // which then start over.
  virtual std::string signal_left_set() = 0;
  // The ranks record the tasks of the launches from now on (the DFX outputs of a recorder
  // without windows)...
  virtual void record_tasks() = 0;
  // ... until, after join(), they are added to `into`.
  virtual void collect_tasks(TaskRecorder& into) = 0;
};

// A worker's side: window traffic to the ranks in other processes. A region is given by its
// window buffer, its byte offset in the buffer, and the sizes, strides and dtype of `view`
// (a view of this rank's copy at the same place).
class PeerLinks {
 public:
  virtual ~PeerLinks() = default;
  // Writes (or, `add`, adds) `value` into the peer's copy of the region; returns once the
  // write is on its way: the peer applies this rank's messages in order.
  virtual void write(int peer, int buffer, int64_t offset, const at::Tensor& view, const at::Tensor& value,
                     bool add) = 0;
  // Reads the peer's copy of the region into `out` (a tensor of the view's shape).
  virtual void read(int peer, int buffer, int64_t offset, const at::Tensor& view, const at::Tensor& out) = 0;
  // Applies `op` with `value` to the peer's int32 signal slot at `offset` of `buffer`.
  virtual void notify(int peer, int buffer, int64_t offset, int32_t value, NotifyOp op) = 0;
};

// PYPTO_SIM_RANKS: "process" runs an L3 program's ranks in worker processes, "thread" (or
// unset) in this one; unset with PYPTO_SIM_RANK_HOSTS set (the machines of the workers) is
// "process". std::invalid_argument for another value, or "thread" with PYPTO_SIM_RANK_HOSTS.
bool ranks_in_processes();

// The host's side for `program`'s ranks in worker processes, as the code that can start
// them (host/ranks, in the pipeline library) registered it; std::runtime_error when nothing
// did (a program without the interpreter).
using RemoteRanksMaker = std::unique_ptr<RemoteRanks> (*)(const Program& program, CommDomain& domain);
void set_remote_ranks_maker(RemoteRanksMaker maker);
std::unique_ptr<RemoteRanks> make_remote_ranks(const Program& program, CommDomain& domain);

}  // namespace pypto_golden::sim
