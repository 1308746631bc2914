#include "cli/memory_guard.h"

#include "run/machine_memory.h"
#include "tensor/bytes_text.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
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

// A process's resident bytes; only those not shared with files (its private ones) when
// `own_only`: a rank worker's mapping of the host's memory (ranks/shared_host_memory.h)
// and its libraries are counted with the host already.
uint64_t resident_bytes(const std::string& process, bool own_only) {
  std::ifstream statm("/proc/" + process + "/statm");
  uint64_t size = 0, resident = 0, shared = 0;
  statm >> size >> resident >> shared;  // 0 for a child that has just ended
  if (own_only) resident -= std::min(shared, resident);
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

MemoryState with_machine(MemoryState state) {
  const MachineMemory m = machine_memory();  // the machine's, or its cgroup's when tighter
  state.total = m.total;
  state.available = m.available;
  return state;
}

std::string holds_text(const MemoryState& state) {
  std::string text = "the run holds " + bytes_text(state.resident);
  if (state.children > 0)
    text += " (" + bytes_text(state.children_resident) + " of it in its " + std::to_string(state.children) +
            (state.children == 1 ? " child process)" : " child processes)");
  return text;
}

[[noreturn]] void stop(const std::string& who, const std::string& message) {
  const std::string line = who + ": " + message + "\n";
  // Another thread runs the script: no stream, no lock, and no clean-up that could allocate.
  ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  (void)written;
  ::_exit(kOutOfMemoryStatus);
}

}  // namespace

MemoryState run_resident() {
  MemoryState state;
  state.resident = resident_bytes("self", false);
  // Every thread's children: a rank worker is forked by the thread of the run that needs it.
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream children(task.path() / "children");
    std::string pid;
    while (children >> pid) {
      const uint64_t bytes = resident_bytes(pid, true);
      ++state.children;
      state.children_resident += bytes;
      state.resident += bytes;
    }
  }
  return state;
}

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
    return "out of memory: " + holds_text(state) + ", more than PYPTO_GOLDEN_MEMORY_GUARD=" +
           bytes_text(*setting.limit) + "; stopped (exit status " + std::to_string(kOutOfMemoryStatus) + ")";
  }
  if (state.total == 0 || state.available >= floor_bytes(state.total) || state.resident < state.total / 2) return "";
  return "out of memory: " + bytes_text(state.available) + " of this machine's " + bytes_text(state.total) +
         " are left and " + holds_text(state) +
         "; stopped before the kernel's OOM killer ends it without a word (exit status " +
         std::to_string(kOutOfMemoryStatus) + "; PYPTO_GOLDEN_MEMORY_GUARD=off turns this check off, =SIZE stops "
         "the run at SIZE instead)";
}

void start_memory_guard(const std::string& who) {
  const MemoryGuardSetting setting = parse_memory_guard(std::getenv("PYPTO_GOLDEN_MEMORY_GUARD"));
  if (setting.off) return;
  std::thread([setting, who] {
    const uint64_t total = machine_memory().total;  // the machine's, or its cgroup's limit
    for (;;) {
      const MemoryState run = run_resident();
      // /proc/meminfo costs more than statm: it is read once the run holds half the memory.
      const bool close = setting.limit ? true : run.resident >= total / 2;
      if (close) {
        const std::string verdict = memory_guard_verdict(setting, setting.limit ? run : with_machine(run));
        if (!verdict.empty()) stop(who, verdict);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(close ? 10 : 50));
    }
  }).detach();
}

}  // namespace pypto_golden
