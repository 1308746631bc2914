// The rank workers a host process starts on its own machine (--ranks=process): one
// `pypto-golden --worker` child per rank, which dies with the host (PR_SET_PDEATHSIG), and
// which the host reaps, so that nothing is left behind on success, failure, Ctrl-C or a
// killed worker.
#pragma once

#include "ranks/store_address.h"

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace pypto_golden::ranks {

// How a child ended, from its wait status: "exited with status 3", "was killed by signal 9
// (SIGKILL)".
std::string describe_wait_status(int status);

struct WorkerEnd {
  int rank = -1;
  pid_t pid = 0;
  int status = 0;  // the wait status
};

// "rank 1 (pid 4242 on this machine) was killed by signal 9 (SIGKILL)"
std::string describe_worker_end(const WorkerEnd& end);

class LocalWorkers {
 public:
  // Starts `executable --worker --store ADDRESS --rank r --world-size N` for r = 0 .. N - 1.
  // Throws std::runtime_error (naming the executable and errno's text) when one cannot start;
  // the ones already started are stopped.
  LocalWorkers(const std::string& executable, const StoreAddress& store, int world_size);
  ~LocalWorkers();  // kills and reaps every worker still running
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  pid_t pid(int rank) const { return pids_.at(static_cast<size_t>(rank)); }
  // A worker that has ended since the last call (reaped now), if any; never blocks.
  std::optional<WorkerEnd> reap_ended();
  // Throws std::runtime_error when a worker has ended: "rank 1 (pid 4242 on this machine)
  // was killed by signal 9 (SIGKILL)". A worker runs until the host stops it, so any end
  // before that is a failure of the run.
  void check_running();
  // Waits up to `grace` for every worker to exit by itself, then kills and reaps the rest.
  // Returns how each one that had not been reaped before ended, by rank.
  std::vector<WorkerEnd> finish(std::chrono::milliseconds grace);

 private:
  std::vector<pid_t> pids_;  // 0 once reaped
};

}  // namespace pypto_golden::ranks
