// Rank workers in processes: the store address, the rank store, the rendezvous, and real
// `pypto-golden --worker` children started, stopped and killed.
#include "ranks/build_identity.h"
#include "ranks/local_workers.h"
#include "ranks/rank_hosts.h"
#include "ranks/rank_store.h"
#include "ranks/rendezvous.h"
#include "ranks/store_address.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

// The commands of `n` workers on this machine.
std::vector<WorkerCommand> beside(const std::string& executable, const StoreAddress& store, int n) {
  return worker_commands(RankHosts{"", {RankHost{"localhost", n, "", 1}}}, n, store, executable);
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
  CHECK(describe_worker_end(WorkerEnd{1, 4242, SIGKILL, "", ""}) ==
        "rank 1 (pid 4242 on this machine) was killed by signal 9 (SIGKILL)");
  CHECK(describe_worker_end(WorkerEnd{0, 7, 3 << 8, "", ""}) ==
        "rank 0 (pid 7 on this machine) exited with status 3: its memory guard stopped it, out of memory (its "
        "message is above)");
  CHECK(describe_worker_end(WorkerEnd{2, 99, 255 << 8, "node-b", "ssh -o BatchMode=yes node-b"}) ==
        "rank 2 (on node-b, through `ssh -o BatchMode=yes node-b`, pid 99 on this machine) exited with status 255");
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
  LocalWorkers workers(beside(PYPTO_GOLDEN_TEST_EXECUTABLE, host->address(), 2));
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
    LocalWorkers workers(beside(PYPTO_GOLDEN_TEST_EXECUTABLE, host->address(), 2));
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
  CHECK(message_of([] { LocalWorkers w(beside("/nonexistent/pypto-golden", StoreAddress{"127.0.0.1", 1}, 2)); }) ==
        "cannot start the worker of rank 0 (/nonexistent/pypto-golden): No such file or directory");
}

// --rank-hosts: the machines of a host's workers, and the launcher that starts them there.

TEST_CASE("a rank hosts file: machines with their slots and bin; comments") {
  const RankHosts h = parse_rank_hosts("# the lab\n"
                                       "node-b slots=2   # two ranks\n"
                                       "\n"
                                       "  node-c bin=/opt/pg/bin/pypto-golden slots=3\n"
                                       "localhost\n",
                                       "hosts.txt");
  REQUIRE(h.hosts.size() == 3);
  CHECK(h.hosts[0].name == "node-b");
  CHECK(h.hosts[0].slots == 2);
  CHECK(h.hosts[0].bin.empty());
  CHECK(h.hosts[1].slots == 3);
  CHECK(h.hosts[1].bin == "/opt/pg/bin/pypto-golden");
  CHECK(h.hosts[1].line == 4);
  CHECK(h.hosts[2].slots == 1);
  CHECK(h.slots() == 6);
  CHECK_FALSE(h.this_machine_only());
  CHECK(parse_rank_hosts("localhost slots=2\n127.0.0.1\n" + this_host_name() + "\n", "f").this_machine_only());
}

TEST_CASE("a rank hosts file: every mistake names its line") {
  const auto error = [](const std::string& text) { return message_of([&] { parse_rank_hosts(text, "hosts.txt"); }); };
  CHECK(error("node-b slots=0\n") ==
        "hosts.txt, line 1: slots must be a positive integer (the ranks node-b runs), got '0'");
  CHECK(error("# x\nnode-b slots=two\n") ==
        "hosts.txt, line 2: slots must be a positive integer (the ranks node-b runs), got 'two'");
  CHECK(error("node-b slots=\n") ==
        "hosts.txt, line 1: slots must be a positive integer (the ranks node-b runs), got ''");
  CHECK(error("node-b ranks=2\n") == "hosts.txt, line 1: 'ranks=2' is not slots=N or bin=PATH");
  CHECK(error("node-b bin=\n") == "hosts.txt, line 1: bin= needs the path of pypto-golden on node-b");
  CHECK(error("slots=2 node-b\n") == "hosts.txt, line 1: a line starts with the machine's name, got 'slots=2'");
  CHECK(error("# nothing\n\n") == "hosts.txt: lists no machine (a line is NAME [slots=N] [bin=PATH])");
  CHECK(message_of([] { read_rank_hosts("/nonexistent/hosts.txt"); }) == "/nonexistent/hosts.txt: cannot be read");
}

TEST_CASE("the launcher of a worker on another machine") {
  {
    EnvVar l("PYPTO_SIM_RANK_LAUNCHER", nullptr);
    CHECK(launcher_words("node-b") == std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "node-b"});
  }
  {
    EnvVar l("PYPTO_SIM_RANK_LAUNCHER", "ssh -p 2222");  // no {host}: the host comes last
    CHECK(launcher_words("node-b") == std::vector<std::string>{"ssh", "-p", "2222", "node-b"});
  }
  {
    EnvVar l("PYPTO_SIM_RANK_LAUNCHER", "ip netns exec {host}");
    CHECK(launcher_words("ns1") == std::vector<std::string>{"ip", "netns", "exec", "ns1"});
  }
  {
    EnvVar l("PYPTO_SIM_RANK_LAUNCHER", "srun -w{host} --ntasks=1");
    CHECK(launcher_words("n7") == std::vector<std::string>{"srun", "-wn7", "--ntasks=1"});
  }
}

TEST_CASE("each rank's worker command: in the file's order; this machine directly and others through the launcher") {
  EnvVar l("PYPTO_SIM_RANK_LAUNCHER", nullptr);
  const RankHosts h = parse_rank_hosts("localhost\nnode-b slots=2 bin=/opt/pg\nnode-c slots=4\n", "hosts.txt");
  const std::vector<WorkerCommand> c = worker_commands(h, 4, StoreAddress{"node-a", 29500}, "/usr/bin/pypto-golden");
  REQUIRE(c.size() == 4);  // node-c's slots past the program's ranks stay unused
  CHECK(c[0].argv == std::vector<std::string>{"/usr/bin/pypto-golden", "--worker", "--store", "node-a:29500", "--rank",
                                              "0", "--world-size", "4"});
  CHECK(c[0].machine.empty());
  CHECK(c[0].launcher.empty());
  CHECK(c[2].argv == std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "node-b", "/opt/pg", "--worker", "--store",
                                              "node-a:29500", "--rank", "2", "--world-size", "4"});
  CHECK(c[2].machine == "node-b");
  CHECK(c[2].launcher == "ssh -o BatchMode=yes node-b");
  CHECK(c[3].machine == "node-c");
  CHECK(c[3].argv[4] == "/usr/bin/pypto-golden");
  CHECK(message_of([&] { worker_commands(h, 8, StoreAddress{"node-a", 1}, "pg"); }) ==
        "the program runs 8 ranks, but hosts.txt has slots for 7: give its machines more slots=N, or list more "
        "machines");
}

TEST_CASE("the store's address for a rank hosts file") {
  EnvVar a("MASTER_ADDR", nullptr), p("MASTER_PORT", nullptr);
  CHECK(store_address_for(parse_rank_hosts("localhost slots=2\n", "f")).text() == "127.0.0.1:0");
  CHECK(store_address_for(parse_rank_hosts("node-b\n", "f")).text() == this_host_name() + ":0");
  EnvVar a2("MASTER_ADDR", "10.0.0.1"), p2("MASTER_PORT", "29500");
  CHECK(store_address_for(parse_rank_hosts("node-b\n", "f")).text() == "10.0.0.1:29500");
}

TEST_CASE("the address toward a peer is the route's source") {
  CHECK(local_address_toward(StoreAddress{"127.0.0.1", 29500}) == "127.0.0.1");
  CHECK(local_address_toward(StoreAddress{"no-such-host.invalid", 29500}).empty());
}

namespace {

// A launcher standing in for ssh: it logs the machine it was asked for, then runs the rest
// of its command here.
std::string fake_launcher(const std::filesystem::path& dir, int status_instead = -1) {
  const std::filesystem::path script = dir / (status_instead < 0 ? "fake-ssh" : "failing-ssh");
  std::ofstream(script) << "#!/bin/sh\n"
                        << "echo \"$1\" >> " << (dir / "machines.log").string() << "\n"
                        << (status_instead < 0 ? std::string("shift\nexec \"$@\"\n")
                                               : "echo \"ssh: Could not resolve hostname $1\" >&2\nexit " +
                                                     std::to_string(status_instead) + "\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script.string() + " {host}";
}

std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("workers on other machines: started through the launcher they join the host") {
  quiet_c10d_logging();
  const std::filesystem::path dir = fresh_dir("pg-launcher-");
  EnvVar l("PYPTO_SIM_RANK_LAUNCHER", fake_launcher(dir).c_str());
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me(build_identity(), getpid()), 3};
  publish_host(*host, record);
  LocalWorkers workers(worker_commands(parse_rank_hosts("node-b slots=2\nlocalhost\n", "hosts.txt"), 3,
                                       host->address(), PYPTO_GOLDEN_TEST_EXECUTABLE));
  const std::vector<PeerRecord> ranks = await_ranks(*host, record, 30s, [&] { workers.check_running(); });
  CHECK(ranks.size() == 3);
  CHECK(ranks[2].pid == workers.pid(2));  // this machine's: a child itself
  CHECK(ranks[0].pid == workers.pid(0));  // the launcher exec'd the worker in its own process
  workers.finish(0ms);
  std::ifstream log(dir / "machines.log");
  std::string machines((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  CHECK(machines == "node-b\nnode-b\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("workers on other machines: a launcher that fails is named with its machine") {
  quiet_c10d_logging();
  const std::filesystem::path dir = fresh_dir("pg-launcher-fail-");
  EnvVar l("PYPTO_SIM_RANK_LAUNCHER", fake_launcher(dir, 255).c_str());
  auto host = RankStore::serve("127.0.0.1", 0);
  const HostRecord record{me(build_identity(), getpid()), 1};
  publish_host(*host, record);
  LocalWorkers workers(
      worker_commands(parse_rank_hosts("node-b\n", "hosts.txt"), 1, host->address(), PYPTO_GOLDEN_TEST_EXECUTABLE));
  const pid_t pid = workers.pid(0);
  CHECK(message_of([&] { await_ranks(*host, record, 30s, [&] { workers.check_running(); }); }) ==
        "rank 0 (on node-b, through `" + (dir / "failing-ssh").string() + " node-b`, pid " + std::to_string(pid) +
            " on this machine) exited with status 255");
  std::filesystem::remove_all(dir);
}
