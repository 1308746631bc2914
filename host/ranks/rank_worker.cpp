#include "ranks/rank_worker.h"

#include "ranks/build_identity.h"
#include "ranks/gloo_group.h"
#include "ranks/rank_runtime.h"
#include "ranks/rank_store.h"
#include "ranks/rendezvous.h"
#include "sim/comm/env_seconds.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace pypto_golden::ranks {
namespace {

// A count from the environment (RANK, WORLD_SIZE), as torchrun sets them.
std::optional<int> count_from_env(const char* name) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return std::nullopt;
  const std::string text(raw);
  if (text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(std::string(name) + " must be a non-negative integer, got '" + text + "'");
  return std::atoi(raw);
}

int refuse(const std::string& who, const std::string& message) {
  std::fprintf(stderr, "pypto-golden --worker%s: %s\n", who.c_str(), message.c_str());
  return kWorkerRefused;
}

}  // namespace

int run_rank_worker(const WorkerOptions& options) {
  StoreAddress address;
  int rank = 0, world_size = 0;
  std::chrono::milliseconds timeout{};
  try {
    const std::optional<StoreAddress> store = options.store ? options.store : store_address_from_env();
    const std::optional<int> r = options.rank ? options.rank : count_from_env("RANK");
    const std::optional<int> w = options.world_size ? options.world_size : count_from_env("WORLD_SIZE");
    if (!store) return refuse("", "no rank store given: pass --store HOST:PORT (or set MASTER_ADDR and MASTER_PORT)");
    if (!r) return refuse("", "no rank given: pass --rank R (or set RANK)");
    if (!w) return refuse("", "no world size given: pass --world-size N (or set WORLD_SIZE)");
    if (*w < 1) return refuse("", "the world size must be at least 1, got " + std::to_string(*w));
    if (*r >= *w)
      return refuse("", "rank " + std::to_string(*r) + " is out of range for a world of " + std::to_string(*w) +
                            " ranks (0 to " + std::to_string(*w - 1) + ")");
    address = *store;
    rank = *r;
    world_size = *w;
    timeout = sim::seconds_from_env("PYPTO_SIM_RANK_TIMEOUT", std::chrono::milliseconds(30000));
  } catch (const std::invalid_argument& e) {
    return refuse("", e.what());
  }

  const std::string who = " (rank " + std::to_string(rank) + ")";
  quiet_c10d_logging();
  std::unique_ptr<RankStore> store;
  std::unique_ptr<GlooGroup> group;
  try {
    store = RankStore::connect(address, timeout);
    join_ranks(*store, rank, world_size, PeerRecord{build_identity(), this_host_name(), getpid()}, timeout);
    // The host is the group's last rank. A host on a loopback address is on this machine.
    group = GlooGroup::join(address, rank, world_size + 1, timeout, is_loopback_host(address.host));
  } catch (const std::runtime_error& e) {  // RankStoreError, RendezvousError, GroupError
    return refuse(who, e.what());
  }
  // A receive from any rank does not fail when the host's connection closes, so a host
  // that ends without stopping this worker (killed, its machine gone) is noticed through
  // its store.
  std::thread([&store, who] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      try {
        check_host(*store);
      } catch (const RankStoreError& e) {
        std::fprintf(stderr, "pypto-golden --worker%s: lost the host: %s\n", who.c_str(), e.what());
        std::fflush(nullptr);
        _exit(kWorkerLostHost);
      }
    }
  }).detach();
  int status = kWorkerStopped;
  {
    WithoutGil no_gil;  // the group's own threads never need it
    try {
      status = serve_rank(*group, rank);
    } catch (const GroupError& e) {
      std::fprintf(stderr, "pypto-golden --worker%s: lost the host: %s\n", who.c_str(), e.what());
      status = kWorkerLostHost;
    }
  }
  // Done: exit without taking the group, the store and the interpreter down. With the host
  // gone, c10d's teardown looks up the peers' names (reverse DNS), which on a machine
  // without a name server takes seconds per connection; the kernel frees everything anyway.
  std::fflush(nullptr);
  _exit(status);
}

}  // namespace pypto_golden::ranks
