// The rank workers a host process starts (--ranks=process): one child per rank, which is
// `pypto-golden --worker` itself on this machine, or the launcher (ssh) that starts it on
// another (--rank-hosts). A child dies with the host (PR_SET_PDEATHSIG; a worker elsewhere
// then loses the host's store and exits), and the host reaps every one, so that nothing is
// left behind on success, failure, Ctrl-C or a killed worker.
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

// How to start one rank's worker.
struct WorkerCommand {
  std::vector<std::string> argv;  // the launcher's words, if any, then the worker's
  std::string machine;            // "" for this machine, else where the launcher starts it
  std::string launcher;           // the launcher's words as one text ("" on this machine)
};

struct WorkerEnd {
  int rank = -1;
  pid_t pid = 0;
  int status = 0;  // the wait status
  std::string machine;
  std::string launcher;
};

// "rank 1 (pid 4242 on this machine) was killed by signal 9 (SIGKILL)"; for a worker on
// another machine "rank 1 (on node-b, through `ssh -o BatchMode=yes node-b`, pid 4242 on
// this machine) exited with status 255".
std::string describe_worker_end(const WorkerEnd& end);

class LocalWorkers {
 public:
  // Starts `commands[r]` as rank r's worker. Throws std::runtime_error (naming the
  // executable and errno's text) when one cannot start; the ones already started are stopped.
  explicit LocalWorkers(const std::vector<WorkerCommand>& commands);
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
  std::vector<WorkerCommand> commands_;
};

}  // namespace pypto_golden::ranks
