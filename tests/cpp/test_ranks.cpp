// Rank workers in processes: the store address, the rank store, the rendezvous, and real
// `pypto-golden --worker` children started, stopped and killed.
#include "ranks/build_identity.h"
#include "ranks/local_workers.h"
#include "ranks/rank_store.h"
#include "ranks/rendezvous.h"
#include "ranks/store_address.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

using namespace pypto_golden::ranks;
using namespace std::chrono_literals;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

struct EnvVar {
  std::string name;
  EnvVar(const char* n, const char* value) : name(n) {
    if (value) setenv(n, value, 1);
    else unsetenv(n);
  }
  ~EnvVar() { unsetenv(name.c_str()); }
};

PeerRecord me(const std::string& identity, int64_t pid = 0) { return PeerRecord{identity, "node-a", pid}; }

const std::function<void()> nothing_ended = [] {};

}  // namespace

TEST_CASE("a store address is HOST:PORT") {
  CHECK(parse_store_address("10.0.0.2:29500", "--store").text() == "10.0.0.2:29500");
  CHECK(parse_store_address("[::1]:7", "--store").host == "::1");
  CHECK(parse_store_address("[::1]:7", "--store").text() == "[::1]:7");
  CHECK(message_of([] { parse_store_address("node", "--store"); }) ==
        "--store must be HOST:PORT (a port from 1 to 65535), got 'node': no port");
  CHECK(message_of([] { parse_store_address("node:0", "--store"); }) ==
        "--store must be HOST:PORT (a port from 1 to 65535), got 'node:0': the port is '0'");
  CHECK(message_of([] { parse_store_address(":80", "--store"); }) ==
        "--store must be HOST:PORT (a port from 1 to 65535), got ':80': no host");
  CHECK(message_of([] { parse_store_address("::1:80", "--store"); }) ==
        "--store must be HOST:PORT (a port from 1 to 65535), got '::1:80': write an IPv6 address in brackets, as "
        "[::1]:29500");
}

TEST_CASE("a store address from torchrun's MASTER_ADDR and MASTER_PORT") {
  {
    EnvVar a("MASTER_ADDR", nullptr), p("MASTER_PORT", nullptr);
    CHECK_FALSE(store_address_from_env().has_value());
  }
  {
    EnvVar a("MASTER_ADDR", "node-a"), p("MASTER_PORT", "29500");
    CHECK(store_address_from_env()->text() == "node-a:29500");
  }
  {
    EnvVar a("MASTER_ADDR", "node-a"), p("MASTER_PORT", nullptr);
    CHECK(message_of([] { store_address_from_env(); }) ==
          "MASTER_ADDR is set but MASTER_PORT is not: set both, or neither");
  }
  {
    EnvVar a("MASTER_ADDR", "node-a"), p("MASTER_PORT", "70000");
    CHECK(message_of([] { store_address_from_env(); }) == "MASTER_PORT must be a port from 1 to 65535, got '70000'");
  }
}

TEST_CASE("how a worker ended, from its wait status") {
  CHECK(describe_wait_status(3 << 8) == "exited with status 3");
  CHECK(describe_wait_status(SIGKILL) == "was killed by signal 9 (SIGKILL)");
  CHECK(describe_wait_status(SIGSEGV | 0x80) == "was killed by signal 11 (SIGSEGV)");  // with a core dump
  CHECK(describe_worker_end(WorkerEnd{1, 4242, SIGKILL}) ==
        "rank 1 (pid 4242 on this machine) was killed by signal 9 (SIGKILL)");
  CHECK(describe_worker_end(WorkerEnd{0, 7, 3 << 8}) ==
        "rank 0 (pid 7 on this machine) exited with status 3: its memory guard stopped it, out of memory (its "
        "message is above)");
}

TEST_CASE("the rank store: served, reached, and not reached") {
  quiet_c10d_logging();
  auto host = RankStore::serve("127.0.0.1", 0);
  CHECK(host->address().port != 0);
  auto worker = RankStore::connect(host->address(), 5s);
  CHECK_FALSE(host->check("k"));
  worker->set("k", "v");
  CHECK(host->check("k"));  // set returns once the store has the key
  CHECK(host->get("k") == "v");
  CHECK_FALSE(worker->wait("never", 50ms));
  CHECK(worker->add("n", 2) == 2);
  CHECK(host->add("n", 1) == 3);

  const StoreAddress closed{"127.0.0.1", host->address().port};
  host.reset();  // the port is closed now
  CHECK(message_of([&] { RankStore::connect(closed, 300ms); }) ==
        "cannot reach the rank store at " + closed.text() +
            " within 0.3 s: no host process accepted a connection there (is it running, and is the address one this "
            "machine can reach?)");
  // A worker whose host went away learns it at its next request.
  CHECK(message_of([&] { worker->wait("stop", 1s); }).rfind("the rank store at " + closed.text() + ": ", 0) == 0);
}

TEST_CASE("rendezvous: every rank joins") {
  quiet_c10d_logging();
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me(build_identity(), 100), 2};
  publish_host(*host, record);
  std::vector<std::future<HostRecord>> joins;
  for (int r = 0; r < 2; ++r)
    joins.push_back(std::async(std::launch::async, [&, r] {
      auto store = RankStore::connect(host->address(), 5s);
      return join_ranks(*store, r, 2, me(build_identity(), 200 + r), 5s);
    }));
  const std::vector<PeerRecord> ranks = await_ranks(*host, record, 5s, nothing_ended);
  REQUIRE(ranks.size() == 2);
  CHECK(ranks[1].pid == 201);
  CHECK(describe_rank(1, ranks[1]) == "rank 1 (pid 201 on node-a)");
  for (auto& j : joins) CHECK(j.get().peer.pid == 100);
}

TEST_CASE("rendezvous refuses another build, another world size and a rank taken twice") {
  quiet_c10d_logging();
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me("pypto-golden 0.1.0 (torch 2.13.0, sources aaaaaaaaaaaa)", 100), 3};
  publish_host(*host, record);
  auto worker = RankStore::connect(host->address(), 5s);

  CHECK(message_of([&] { join_ranks(*worker, 0, 3, me("pypto-golden 0.1.0 (torch 2.13.0, sources bbbbbbbbbbbb)", 7), 5s); }) ==
        "this worker is pypto-golden 0.1.0 (torch 2.13.0, sources bbbbbbbbbbbb), but the host (pid 100 on node-a) is "
        "pypto-golden 0.1.0 (torch 2.13.0, sources aaaaaaaaaaaa): start the host and every worker from the same "
        "pypto-golden build");
  // The host hears of the refusal instead of waiting out its timeout.
  CHECK(message_of([&] { await_ranks(*host, record, 5s, nothing_ended); }) ==
        "rank 0 (pid 7 on node-a) refused to join: this worker is pypto-golden 0.1.0 (torch 2.13.0, sources "
        "bbbbbbbbbbbb), but the host (pid 100 on node-a) is pypto-golden 0.1.0 (torch 2.13.0, sources aaaaaaaaaaaa): "
        "start the host and every worker from the same pypto-golden build");

  CHECK(message_of([&] { join_ranks(*worker, 1, 2, me(record.peer.identity, 8), 5s); }) ==
        "this worker was started for 2 ranks (--world-size), but the host (pid 100 on node-a) runs 3");

  join_ranks(*worker, 2, 3, me(record.peer.identity, 9), 5s);
  CHECK(message_of([&] { join_ranks(*worker, 2, 3, me(record.peer.identity, 10), 5s); }) ==
        "rank 2 has already joined the host (pid 100 on node-a): another worker was started with --rank 2");
}

TEST_CASE("rendezvous: a rank that never joins, a worker without a host") {
  quiet_c10d_logging();
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me(build_identity(), 100), 3};
  auto worker = RankStore::connect(host->address(), 5s);
  CHECK(message_of([&] { join_ranks(*worker, 0, 3, me(build_identity()), 200ms); }) ==
        "no pypto-golden host published itself in the rank store at " + host->address().text() +
            " within 0.2 s (PYPTO_SIM_RANK_TIMEOUT)");
  publish_host(*host, record);
  join_ranks(*worker, 1, 3, me(build_identity()), 5s);
  CHECK(message_of([&] { await_ranks(*host, record, 200ms, nothing_ended); }) ==
        "ranks 0, 2 did not join within 0.2 s (PYPTO_SIM_RANK_TIMEOUT): start one `pypto-golden --worker --store " +
            host->address().text() + " --rank R --world-size 3` for each");
  // The host's check of its own workers ends the wait as soon as one has died.
  CHECK(message_of([&] { await_ranks(*host, record, 5s, [] { throw std::runtime_error("rank 0 died"); }); }) ==
        "rank 0 died");
}

// The Gloo group the workers form next, and their stop, need the host's Python:
// tests/e2e/test_rank_processes.py.
TEST_CASE("local workers: real pypto-golden --worker processes join and are reaped") {
  quiet_c10d_logging();
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me(build_identity(), getpid()), 2};
  publish_host(*host, record);
  LocalWorkers workers(PYPTO_GOLDEN_TEST_EXECUTABLE, host->address(), 2);
  const std::vector<PeerRecord> ranks = await_ranks(*host, record, 30s, [&] { workers.check_running(); });
  CHECK(ranks[0].pid == workers.pid(0));
  CHECK(ranks[1].pid == workers.pid(1));
  CHECK(ranks[1].host == this_host_name());
  const std::vector<WorkerEnd> ends = workers.finish(0ms);  // they wait for the group: killed
  REQUIRE(ends.size() == 2);
  CHECK(ends[1].pid == ranks[1].pid);
  CHECK(describe_wait_status(ends[1].status) == "was killed by signal 9 (SIGKILL)");
  CHECK(kill(ranks[0].pid, 0) == -1);
}

TEST_CASE("local workers: a killed worker fails the rendezvous by name; the rest are reaped") {
  quiet_c10d_logging();
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me(build_identity(), getpid()), 2};
  publish_host(*host, record);
  pid_t killed = 0, survivor = 0;
  {
    LocalWorkers workers(PYPTO_GOLDEN_TEST_EXECUTABLE, host->address(), 2);
    killed = workers.pid(1);
    survivor = workers.pid(0);
    kill(killed, SIGKILL);
    CHECK(message_of([&] { await_ranks(*host, record, 30s, [&] { workers.check_running(); }); }) ==
          "rank 1 (pid " + std::to_string(killed) + " on this machine) was killed by signal 9 (SIGKILL)");
  }
  // The destructor killed and reaped rank 0: no process of that pid is left.
  CHECK(kill(survivor, 0) == -1);
}

TEST_CASE("local workers: an executable that cannot start is named") {
  quiet_c10d_logging();
  CHECK(message_of([] { LocalWorkers w("/nonexistent/pypto-golden", StoreAddress{"127.0.0.1", 1}, 2); }) ==
        "cannot start the worker of rank 0 (/nonexistent/pypto-golden): No such file or directory");
}
