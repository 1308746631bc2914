// What a rank worker runs once it is in the group: the simulated device of its rank, the
// host's program, the chip launches the host sends (each in order on the rank's thread,
// with the host's bytes it asks for when the launch starts and the bytes it changed sent
// back when it ends), and the window traffic between the ranks, which its one receiving
// thread applies to this rank's windows in the order each sender sent it.
#pragma once

#include "ranks/gloo_group.h"

namespace pypto_golden::ranks {

// Serves the host's and the other ranks' messages until the host stops this worker;
// returns kWorkerStopped then. GroupError when the host or the network goes away.
int serve_rank(GlooGroup& group, int rank);

}  // namespace pypto_golden::ranks
