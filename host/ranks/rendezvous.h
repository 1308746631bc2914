// Rendezvous of a host process and its rank workers through the rank store. The host
// publishes who it is and how many ranks it needs; each worker checks that it is the same
// build, claims its rank and publishes who it is; the host waits until every rank has.
// Either side refuses a mismatch with a message naming both builds.
#pragma once

#include "ranks/rank_store.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pypto_golden::ranks {

// A rendezvous that cannot complete: a refused worker, a rank that never joined.
class RendezvousError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PeerRecord {
  std::string identity;  // build_identity() of the process
  std::string host;      // its machine's host name
  int64_t pid = 0;
};

struct HostRecord {
  PeerRecord peer;
  int world_size = 0;  // ranks (worker processes) the host program needs
};

// Host side, first: what every worker checks.
void publish_host(RankStore& store, const HostRecord& host);

// Host side, then: waits until ranks 0 .. host.world_size - 1 have joined and returns their
// records by rank. Every ~20 ms it calls `check_workers`, which throws when a worker it
// started has ended. RendezvousError naming the missing ranks after `timeout`, or naming a
// rank that refused to join or is not this build.
std::vector<PeerRecord> await_ranks(RankStore& store, const HostRecord& host, std::chrono::milliseconds timeout,
                                    const std::function<void()>& check_workers);

// Worker side: reads the host's record (waiting up to `timeout`), checks the build and the
// world size, claims `rank` and publishes `me`. Returns the host's record; RendezvousError
// when refused.
HostRecord join_ranks(RankStore& store, int rank, int world_size, const PeerRecord& me,
                      std::chrono::milliseconds timeout);

// Worker side, while it serves: asks the host's store something, which throws
// RankStoreError once the host (which serves it) has ended.
void check_host(RankStore& store);

// "rank 1 (pid 4242 on node-b)"
std::string describe_rank(int rank, const PeerRecord& peer);

}  // namespace pypto_golden::ranks
