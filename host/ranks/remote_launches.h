// The host's side of an L3 program whose ranks run in worker processes
// (PYPTO_SIM_RANKS=process): it starts the workers, sends them the program, and for each
// chip launch sends the launch with what its program reads of the host's variables. A
// worker asks for the host's bytes when the launch starts on its rank (so a launch sees
// what the rank's earlier launches wrote back) and sends back, when it ends, the bytes it
// changed, which are written into the host's memory; its failure comes back as its message.
#pragma once

#include "sim/comm/remote_ranks.h"
#include "sim/nodes.h"

#include <memory>

namespace pypto_golden::sim {
class CommDomain;
}

namespace pypto_golden::ranks {

// Starts one worker per rank of `program` on this machine and sends it the program.
std::unique_ptr<sim::RemoteRanks> start_remote_ranks(const sim::Program& program, sim::CommDomain& domain);

}  // namespace pypto_golden::ranks
