#include "ranks/rendezvous.h"

#include "sim/comm/env_seconds.h"

#include <nlohmann/json.hpp>

#include <thread>

namespace pypto_golden::ranks {
namespace {

const std::string kHostKey = "pypto-golden/host";
std::string rank_key(int rank) { return "pypto-golden/rank/" + std::to_string(rank); }
std::string claims_key(int rank) { return rank_key(rank) + "/claims"; }

nlohmann::json to_json(const PeerRecord& p) { return {{"identity", p.identity}, {"host", p.host}, {"pid", p.pid}}; }

// A record of the store; RendezvousError when it is not one of ours.
nlohmann::json parse_record(const std::string& text, const std::string& whose) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("identity") || !j["identity"].is_string() || !j.contains("host") ||
      !j["host"].is_string() || !j.contains("pid") || !j["pid"].is_number_integer())
    throw RendezvousError("the rank store holds a record for " + whose +
                          " that pypto-golden did not write; is another program using the store's address?");
  return j;
}

PeerRecord peer_of(const nlohmann::json& j) {
  return PeerRecord{j["identity"].get<std::string>(), j["host"].get<std::string>(), j["pid"].get<int64_t>()};
}

std::string describe_host(const PeerRecord& host) {
  return "the host (pid " + std::to_string(host.pid) + " on " + host.host + ")";
}

std::string same_build_hint() { return "start the host and every worker from the same pypto-golden build"; }

}  // namespace

std::string describe_rank(int rank, const PeerRecord& peer) {
  return "rank " + std::to_string(rank) + " (pid " + std::to_string(peer.pid) + " on " + peer.host + ")";
}

void publish_host(RankStore& store, const HostRecord& host) {
  nlohmann::json j = to_json(host.peer);
  j["world_size"] = host.world_size;
  store.set(kHostKey, j.dump());
}

std::vector<PeerRecord> await_ranks(RankStore& store, const HostRecord& host, std::chrono::milliseconds timeout,
                                    const std::function<void()>& check_workers) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<PeerRecord> joined(static_cast<size_t>(host.world_size));
  std::vector<bool> seen(joined.size(), false);
  size_t missing = joined.size();
  while (missing > 0) {
    for (int r = 0; r < host.world_size; ++r) {
      if (seen[static_cast<size_t>(r)] || !store.check(rank_key(r))) continue;
      const nlohmann::json j = parse_record(store.get(rank_key(r)), "rank " + std::to_string(r));
      const PeerRecord peer = peer_of(j);
      if (j.contains("refused") && j["refused"].is_string())
        throw RendezvousError(describe_rank(r, peer) + " refused to join: " + j["refused"].get<std::string>());
      if (peer.identity != host.peer.identity)
        throw RendezvousError(describe_rank(r, peer) + " is " + peer.identity + ", but this host is " +
                              host.peer.identity + ": " + same_build_hint());
      joined[static_cast<size_t>(r)] = peer;
      seen[static_cast<size_t>(r)] = true;
      --missing;
    }
    if (missing == 0) break;
    check_workers();
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string list;
      for (int r = 0; r < host.world_size; ++r)
        if (!seen[static_cast<size_t>(r)]) list += (list.empty() ? "" : ", ") + std::to_string(r);
      throw RendezvousError(std::string(missing == 1 ? "rank " : "ranks ") + list + " did not join within " +
                            sim::seconds_text(timeout) +
                            " (PYPTO_SIM_RANK_TIMEOUT): start one `pypto-golden --worker --store " +
                            store.address().text() + " --rank R --world-size " + std::to_string(host.world_size) +
                            "` for each");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return joined;
}

HostRecord join_ranks(RankStore& store, int rank, int world_size, const PeerRecord& me,
                      std::chrono::milliseconds timeout) {
  if (!store.wait(kHostKey, timeout))
    throw RendezvousError("no pypto-golden host published itself in the rank store at " + store.address().text() +
                          " within " + sim::seconds_text(timeout) + " (PYPTO_SIM_RANK_TIMEOUT)");
  const nlohmann::json j = parse_record(store.get(kHostKey), "the host");
  if (!j.contains("world_size") || !j["world_size"].is_number_integer())
    throw RendezvousError("the rank store holds a record for the host that pypto-golden did not write; is another "
                          "program using the store's address?");
  HostRecord host{peer_of(j), j["world_size"].get<int>()};
  std::string refusal;
  if (host.peer.identity != me.identity)
    refusal = "this worker is " + me.identity + ", but " + describe_host(host.peer) + " is " + host.peer.identity +
              ": " + same_build_hint();
  else if (world_size != host.world_size)
    refusal = "this worker was started for " + std::to_string(world_size) + " ranks (--world-size), but " +
              describe_host(host.peer) + " runs " + std::to_string(host.world_size);
  if (!refusal.empty()) {
    nlohmann::json record = to_json(me);
    record["refused"] = refusal;
    store.set(rank_key(rank), record.dump());
    throw RendezvousError(refusal);
  }
  if (store.add(claims_key(rank), 1) > 1)
    throw RendezvousError("rank " + std::to_string(rank) + " has already joined " + describe_host(host.peer) +
                          ": another worker was started with --rank " + std::to_string(rank));
  store.set(rank_key(rank), to_json(me).dump());
  return host;
}

void check_host(RankStore& store) { store.check(kHostKey); }

}  // namespace pypto_golden::ranks
