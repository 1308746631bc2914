#include "cli/memory_guard.h"

#include "run/machine_memory.h"
#include "tensor/bytes_text.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace pypto_golden {
namespace {

// Bytes left below which the machine is about to run out: ~1 % of it, 64 MiB to 512 MiB.
uint64_t floor_bytes(uint64_t total) {
  const uint64_t one_percent = total / 100;
  return std::min<uint64_t>(512ull << 20, std::max<uint64_t>(64ull << 20, one_percent));
}

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

MemoryState memory_state(uint64_t resident) {
  const MachineMemory m = machine_memory();  // the machine's, or its cgroup's when tighter
  return MemoryState{resident, m.total, m.available};
}

[[noreturn]] void stop(const std::string& message) {
  const std::string line = "pypto-golden: " + message + "\n";
  // Another thread runs the script: no stream, no lock, and no clean-up that could allocate.
  ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  (void)written;
  ::_exit(kOutOfMemoryStatus);
}

}  // namespace

MemoryGuardSetting parse_memory_guard(const char* raw) {
  MemoryGuardSetting setting;
  if (!raw || !*raw) return setting;
  const std::string text(raw);
  if (text == "off" || text == "0") {
    setting.off = true;
    return setting;
  }
  try {
    setting.limit = parse_byte_count(text, "PYPTO_GOLDEN_MEMORY_GUARD");
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("PYPTO_GOLDEN_MEMORY_GUARD must be 'off' or a positive byte count, optionally with "
                                "a K, M, G or T suffix (e.g. 16G), got '" + text + "'");
  }
  return setting;
}

std::string memory_guard_verdict(const MemoryGuardSetting& setting, const MemoryState& state) {
  if (setting.off) return "";
  if (setting.limit) {
    if (state.resident <= *setting.limit) return "";
    return "out of memory: the run holds " + bytes_text(state.resident) + ", more than PYPTO_GOLDEN_MEMORY_GUARD=" +
           bytes_text(*setting.limit) + "; stopped (exit status " + std::to_string(kOutOfMemoryStatus) + ")";
  }
  if (state.total == 0 || state.available >= floor_bytes(state.total) || state.resident < state.total / 2) return "";
  return "out of memory: " + bytes_text(state.available) + " of this machine's " + bytes_text(state.total) +
         " are left and the run holds " + bytes_text(state.resident) +
         "; stopped before the kernel's OOM killer ends it without a word (exit status " +
         std::to_string(kOutOfMemoryStatus) + "; PYPTO_GOLDEN_MEMORY_GUARD=off turns this check off, =SIZE stops "
         "the run at SIZE instead)";
}

void start_memory_guard() {
  const MemoryGuardSetting setting = parse_memory_guard(std::getenv("PYPTO_GOLDEN_MEMORY_GUARD"));
  if (setting.off) return;
  std::thread([setting] {
    const uint64_t total = memory_state(0).total;  // the machine's, or its cgroup's limit
    for (;;) {
      const uint64_t resident = resident_bytes();
      // /proc/meminfo costs more than statm: it is read once the run holds half the memory.
      const bool close = setting.limit ? true : resident >= total / 2;
      if (close) {
        const std::string verdict =
            memory_guard_verdict(setting, setting.limit ? MemoryState{resident, total, 0} : memory_state(resident));
        if (!verdict.empty()) stop(verdict);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(close ? 10 : 50));
    }
  }).detach();
}

}  // namespace pypto_golden
