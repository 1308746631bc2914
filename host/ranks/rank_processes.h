// The host side of ranks in worker processes: the rank store it serves, the workers it
// starts on this machine, the rendezvous and the Gloo group, as one object. Its end stops
// every worker and reaps it, whatever ended the run.
#pragma once

#include "ranks/gloo_group.h"
#include "ranks/local_workers.h"
#include "ranks/rank_hosts.h"
#include "ranks/rank_store.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pypto_golden::ranks {

// The pypto-golden executable a host starts as its workers: PYPTO_GOLDEN_BIN, else this
// process when it is pypto-golden, else the one beside the extension module (the build
// tree's bin/, or the installation's). std::runtime_error naming where it looked.
std::string worker_executable();

class RankProcesses {
 public:
  // Starts `world_size` workers on this machine and forms the group with them (needs the
  // GIL). Throws std::runtime_error naming the rank and what happened when a worker cannot
  // start, ends, refuses or does not join within PYPTO_SIM_RANK_TIMEOUT.
  static std::unique_ptr<RankProcesses> start_local(int world_size);
  // Serves the rank store on `listen` and waits for `world_size` workers started elsewhere
  // (`pypto-golden --worker --store ADDRESS ...` on other machines), then forms the group.
  // std::runtime_error naming the ranks that refused or did not join in time.
  static std::unique_ptr<RankProcesses> start_remote(int world_size, const StoreAddress& listen);
  // Serves the rank store on `listen` and starts the workers on the machines of `hosts`
  // (rank_hosts.h), then forms the group. std::runtime_error when the hosts have too few
  // slots, and as start_local.
  static std::unique_ptr<RankProcesses> start_on_hosts(int world_size, const RankHosts& hosts,
                                                       const StoreAddress& listen);
  ~RankProcesses();  // stops the workers (a Stop message each), then reaps or kills them
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;

  int world_size() const { return world_size_; }
  // Whether this host started `rank`'s worker on this machine (not through a launcher; a
  // worker that came to the store by itself may be anywhere).
  bool on_this_machine(int rank) const { return rank >= 0 && rank < static_cast<int>(local_.size()) && local_[rank]; }
  GlooGroup& group() { return *group_; }

  // The link check: `nbytes` to every worker and back, one worker after another; the
  // microseconds of each round trip, by rank. std::runtime_error naming the rank when the
  // bytes come back different, or a worker has ended.
  std::vector<double> echo(int64_t nbytes);

  // Why a transfer failed with `error`: how a worker of this machine ended ("rank 1 (pid
  // 4242 on this machine) was killed by signal 9 (SIGKILL)") and its rank, when one has (it
  // closes its connections as it ends), else the error itself and -1.
  std::pair<std::string, int> why_lost(const std::string& error);
  // Tells every worker to stop and waits for each one's answer (the end does it when
  // nothing else did).
  void stop();
  // The workers were told to stop and answered through the caller's own receiving thread.
  void mark_stopped() { stopped_ = true; }
  // After a failure: the workers are killed at once instead of being told to stop (they
  // may be blocked sending to this process, which no longer receives).
  void abandon() { abandoned_ = true; }
  // A worker of this machine that has ended (described, with its rank); never blocks.
  std::optional<std::pair<std::string, int>> worker_ended();

 private:
  RankProcesses() = default;
  // Serves the store, publishes the host, starts the workers of `hosts` (none when they are
  // started by hand), waits for every rank and forms the group.
  static std::unique_ptr<RankProcesses> start(int world_size, const StoreAddress& listen, const RankHosts* hosts);
  int world_size_ = 0;
  std::vector<bool> local_;  // by rank: on_this_machine
  bool abandoned_ = false;
  bool stopped_ = false;
  std::unique_ptr<RankStore> store_;
  std::mutex workers_mu_;  // the host's thread and the service thread both reap
  std::unique_ptr<LocalWorkers> workers_;  // none when the workers were started by hand
  std::unique_ptr<GlooGroup> group_;
};

}  // namespace pypto_golden::ranks
