// Ends a run that is about to exhaust memory with one message, before the kernel's OOM
// killer ends it with none. The budget check before a run (run/memory_budget.h) sees the
// spec tensors only; the script's own data and a golden's temporaries can still fill the
// machine. PYPTO_GOLDEN_MEMORY_GUARD: unset, the run stops when the machine (or its memory
// cgroup) has under ~1 % left and the run holds at least half of it; a size ("8G"), when the
// run's resident memory passes it; "off", never.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pypto_golden {

// Exit status of a run the guard stopped.
constexpr int kOutOfMemoryStatus = 3;

struct MemoryGuardSetting {
  bool off = false;
  std::optional<uint64_t> limit;  // bytes of resident memory; none: the machine's bound
};

// PYPTO_GOLDEN_MEMORY_GUARD's value (nullptr: unset); std::invalid_argument when malformed.
MemoryGuardSetting parse_memory_guard(const char* raw);

// Memory as the guard sees it: the run's resident bytes, and the bytes of memory there are
// and are left (the machine's, or its cgroup's when that is tighter). The run is this
// process and its child processes (the rank workers of --ranks=process): `children` of
// them hold `children_resident` of `resident`.
struct MemoryState {
  uint64_t resident = 0;
  uint64_t total = 0;
  uint64_t available = 0;
  int children = 0;
  uint64_t children_resident = 0;
};

// The run's resident bytes now: this process's and its children's (`children` and
// `children_resident` of the state; `total` and `available` left 0).
MemoryState run_resident();

// The message the run stops with in `state`, or "" when it goes on.
std::string memory_guard_verdict(const MemoryGuardSetting& setting, const MemoryState& state);

// Starts the guard's watch thread (nothing when it is off); its message starts with `who`.
// Throws std::invalid_argument for a malformed PYPTO_GOLDEN_MEMORY_GUARD.
void start_memory_guard(const std::string& who = "pypto-golden");

}  // namespace pypto_golden
