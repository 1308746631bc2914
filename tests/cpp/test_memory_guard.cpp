// The memory guard's setting and verdicts (the e2e tests stop a real run with it), and the
// machine-memory reader it shares with the budget check.
#include "cli/memory_guard.h"
#include "run/machine_memory.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

using namespace pypto_golden;

namespace {
constexpr uint64_t GiB = 1ull << 30, MiB = 1ull << 20;
}

TEST_CASE("PYPTO_GOLDEN_MEMORY_GUARD: unset, off, a size, or one message") {
  CHECK_FALSE(parse_memory_guard(nullptr).off);
  CHECK_FALSE(parse_memory_guard(nullptr).limit);
  CHECK_FALSE(parse_memory_guard("").limit);
  CHECK(parse_memory_guard("off").off);
  CHECK(parse_memory_guard("0").off);
  CHECK(*parse_memory_guard("300M").limit == 300 * MiB);
  CHECK(*parse_memory_guard("8G").limit == 8 * GiB);
  CHECK(*parse_memory_guard("4096").limit == 4096);
  for (const char* bad : {"lots", "-1G", "8X", "G"})
    CHECK_THROWS_WITH_AS(parse_memory_guard(bad),
                         (std::string("PYPTO_GOLDEN_MEMORY_GUARD must be 'off' or a positive byte count, optionally "
                                      "with a K, M, G or T suffix (e.g. 16G), got '") + bad + "'")
                             .c_str(),
                         std::invalid_argument);
}

TEST_CASE("the guard stops a run past its size, or holding most of a machine that is nearly out") {
  MemoryGuardSetting size;
  size.limit = 300 * MiB;
  CHECK(memory_guard_verdict(size, {300 * MiB, 24 * GiB, 20 * GiB}) == "");
  CHECK(memory_guard_verdict(size, {512 * MiB, 24 * GiB, 20 * GiB}) ==
        "out of memory: the run holds 512.0 MiB, more than PYPTO_GOLDEN_MEMORY_GUARD=300.0 MiB; stopped (exit "
        "status 3)");
  const MemoryGuardSetting machine;
  // Nearly out, and the run holds most of it: stopped, naming what is left.
  CHECK(memory_guard_verdict(machine, {22 * GiB, 24 * GiB, 100 * MiB}) ==
        "out of memory: 100.0 MiB of this machine's 24.0 GiB are left and the run holds 22.0 GiB; stopped before "
        "the kernel's OOM killer ends it without a word (exit status 3; PYPTO_GOLDEN_MEMORY_GUARD=off turns this "
        "check off, =SIZE stops the run at SIZE instead)");
  // ~1 % of 24 GiB (245.8 MiB) is the floor; above it the run goes on.
  CHECK(memory_guard_verdict(machine, {22 * GiB, 24 * GiB, 300 * MiB}) == "");
  // Another process holds the memory: its own OOM kill, not this run's to stop.
  CHECK(memory_guard_verdict(machine, {4 * GiB, 24 * GiB, 100 * MiB}) == "");
  // The floor stays within 64 MiB .. 512 MiB on small and large machines.
  CHECK(memory_guard_verdict(machine, {3 * GiB, 4 * GiB, 70 * MiB}) == "");
  CHECK(memory_guard_verdict(machine, {3 * GiB, 4 * GiB, 60 * MiB}) != "");
  CHECK(memory_guard_verdict(machine, {200 * GiB, 256 * GiB, 600 * MiB}) == "");
  CHECK(memory_guard_verdict(machine, {200 * GiB, 256 * GiB, 500 * MiB}) != "");
  MemoryGuardSetting off;
  off.off = true;
  CHECK(memory_guard_verdict(off, {22 * GiB, 24 * GiB, 1 * MiB}) == "");
}

TEST_CASE("the run's memory counts its child processes (rank workers), and says how much is theirs") {
  MemoryGuardSetting size;
  size.limit = 300 * MiB;
  CHECK(memory_guard_verdict(size, {512 * MiB, 24 * GiB, 20 * GiB, 4, 300 * MiB}) ==
        "out of memory: the run holds 512.0 MiB (300.0 MiB of it in its 4 child processes), more than "
        "PYPTO_GOLDEN_MEMORY_GUARD=300.0 MiB; stopped (exit status 3)");
  CHECK(memory_guard_verdict(MemoryGuardSetting{}, {22 * GiB, 24 * GiB, 100 * MiB, 1, 20 * GiB}) ==
        "out of memory: 100.0 MiB of this machine's 24.0 GiB are left and the run holds 22.0 GiB (20.0 GiB of it "
        "in its 1 child process); stopped before the kernel's OOM killer ends it without a word (exit status 3; "
        "PYPTO_GOLDEN_MEMORY_GUARD=off turns this check off, =SIZE stops the run at SIZE instead)");

  // A real child holding 64 MiB: only system calls after fork (this process has threads).
  const MemoryState before = run_resident();
  CHECK(before.resident > 0);
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    void* block = ::mmap(nullptr, 64 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (uint64_t k = 0; block != MAP_FAILED && k < 64 * MiB; k += 4096) static_cast<char*>(block)[k] = 1;
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  const MemoryState with_child = run_resident();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  CHECK(with_child.children == before.children + 1);
  CHECK(with_child.children_resident >= before.children_resident + 64 * MiB);
  CHECK(with_child.resident >= with_child.children_resident + 64 * MiB / 2);  // this process's own share too
}

namespace {
// A /proc and /sys/fs/cgroup of the test's own, under a fresh temporary directory.
struct FakeMachine {
  std::filesystem::path root = std::filesystem::temp_directory_path() /
                               ("pypto_machine_memory_" + std::to_string(::getpid()));
  FakeMachine() { std::filesystem::create_directories(root / "cg/job"); }
  ~FakeMachine() { std::filesystem::remove_all(root); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(root / name) << text; }
  MachineMemoryFiles files() const {
    return {(root / "meminfo").string(), (root / "cgroup").string(), (root / "cg").string()};
  }
};
}  // namespace

TEST_CASE("machine memory: MemAvailable, capped by a tighter memory cgroup") {
  FakeMachine m;
  m.write("meminfo", "MemTotal:       25165824 kB\nMemFree:         1000 kB\nMemAvailable:   20971520 kB\n");
  m.write("cgroup", "0::/job\n");
  // No limit ("max"): the machine's figures.
  m.write("cg/job/memory.max", "max\n");
  m.write("cg/job/memory.current", "1073741824\n");
  MachineMemory got = machine_memory(m.files());
  CHECK(got.total == 24 * GiB);
  CHECK(got.available == 20 * GiB);
  CHECK(got.source == "MemAvailable in /proc/meminfo");
  // An 8 GiB limit with 6 GiB used leaves 2 GiB: the cgroup is the bound, and says so.
  m.write("cg/job/memory.max", "8589934592\n");
  m.write("cg/job/memory.current", "6442450944\n");
  got = machine_memory(m.files());
  CHECK(got.total == 8 * GiB);
  CHECK(got.available == 2 * GiB);
  CHECK(got.source == "the memory cgroup's limit of 8.0 GiB");
  // A limit that leaves more than the machine has left: the machine stays the bound.
  m.write("cg/job/memory.current", "0\n");
  got = machine_memory(m.files());
  CHECK(got.total == 8 * GiB);
  CHECK(got.available == 8 * GiB);
  m.write("meminfo", "MemTotal:       25165824 kB\nMemAvailable:    1048576 kB\n");
  got = machine_memory(m.files());
  CHECK(got.available == 1 * GiB);
  CHECK(got.source == "MemAvailable in /proc/meminfo");
  // Usage past the limit leaves nothing; a malformed limit is no limit.
  m.write("cg/job/memory.current", "9663676416\n");
  CHECK(machine_memory(m.files()).available == 0);
  m.write("cg/job/memory.max", "lots\n");
  CHECK(machine_memory(m.files()).total == 24 * GiB);
  // No /proc/meminfo: nothing is known.
  std::filesystem::remove(m.root / "meminfo");
  got = machine_memory(m.files());
  CHECK(got.total == 0);
  CHECK(got.source.empty());
}
