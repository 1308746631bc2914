#include "run/machine_memory.h"

#include "tensor/bytes_text.h"

#include <fstream>
#include <stdexcept>

namespace pypto_golden {
namespace {

// The limit and usage of this process's memory cgroup (v2), when it has a limit.
bool read_cgroup(const MachineMemoryFiles& files, uint64_t& limit, uint64_t& usage) {
  std::ifstream self(files.self_cgroup);
  std::string line, path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty()) return false;
  const std::string dir = files.cgroup_root + (path == "/" ? std::string() : path);
  std::ifstream max_file(dir + "/memory.max"), current_file(dir + "/memory.current");
  std::string max_text;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> usage)) return false;
  try {
    limit = std::stoull(max_text);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace

MachineMemory machine_memory(const MachineMemoryFiles& files) {
  MachineMemory m;
  std::ifstream meminfo(files.meminfo);
  std::string key, unit;
  uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemTotal:") m.total = kib * 1024;
    else if (key == "MemAvailable:") m.available = kib * 1024;
  }
  if (m.total == 0) return MachineMemory{};
  m.source = "MemAvailable in /proc/meminfo";
  uint64_t limit = 0, usage = 0;
  if (read_cgroup(files, limit, usage) && limit < m.total) {
    m.total = limit;
    const uint64_t left = limit > usage ? limit - usage : 0;
    if (left < m.available) {
      m.available = left;
      m.source = "the memory cgroup's limit of " + bytes_text(limit);
    }
  }
  return m;
}

}  // namespace pypto_golden
