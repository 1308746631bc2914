// What memory this machine has for a run: /proc/meminfo's MemTotal and MemAvailable, capped
// by the memory cgroup (v2) of this process when its limit is tighter, since that is where a
// container's OOM killer acts. The one reader of both, for the budget check before a run
// (run/memory_budget.h) and the guard during it (cli/memory_guard.h).
#pragma once

#include <cstdint>
#include <string>

namespace pypto_golden {

struct MachineMemory {
  uint64_t total = 0;      // bytes; 0 when /proc/meminfo could not be read
  uint64_t available = 0;  // bytes left
  // Which bound gave `available`: "MemAvailable in /proc/meminfo", or "the memory cgroup's
  // limit of 8.0 GiB" when the cgroup left less.
  std::string source;
};

// Where the reader looks; tests point it at files of their own.
struct MachineMemoryFiles {
  std::string meminfo = "/proc/meminfo";
  std::string self_cgroup = "/proc/self/cgroup";
  std::string cgroup_root = "/sys/fs/cgroup";
};

MachineMemory machine_memory(const MachineMemoryFiles& files = {});

}  // namespace pypto_golden
