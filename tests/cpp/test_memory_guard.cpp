// The memory guard's setting and verdicts (the e2e tests stop a real run with it).
#include "cli/memory_guard.h"

#include <doctest/doctest.h>

#include <stdexcept>

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
