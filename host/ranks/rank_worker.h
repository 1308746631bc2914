// `pypto-golden --worker`: a process that holds the simulated device of one rank for a
// host process elsewhere (on this machine or another). It connects to the host's rank
// store, joins the rendezvous and serves the host until the host stops it.
#pragma once

#include "ranks/store_address.h"

#include <optional>

namespace pypto_golden::ranks {

// Exit statuses of a worker.
constexpr int kWorkerStopped = 0;    // the host stopped it
constexpr int kWorkerLostHost = 1;   // the host's store went away
constexpr int kWorkerRefused = 2;    // bad options, unreachable store, refused at rendezvous
constexpr int kWorkerOutOfMemory = 3;  // its memory guard stopped it (cli/memory_guard.h)

struct WorkerOptions {
  std::optional<StoreAddress> store;  // --store, else MASTER_ADDR / MASTER_PORT
  std::optional<int> rank;            // --rank, else RANK
  std::optional<int> world_size;      // --world-size, else WORLD_SIZE
};

// Runs this process as a rank worker; returns its exit status. Every problem is one line on
// stderr starting "pypto-golden --worker". Needs the embedded interpreter (with the GIL):
// torch.distributed's binding makes the Gloo group.
int run_rank_worker(const WorkerOptions& options);

}  // namespace pypto_golden::ranks
