#include "sim/task_progress.h"

#include <array>
#include <atomic>
#include <cstddef>

namespace pypto_golden::sim {
namespace {

constexpr int kSlots = 256;  // device ids beyond share slots: a progress figure, not an account

std::array<std::atomic<uint64_t>, kSlots>& counters() {
  static std::array<std::atomic<uint64_t>, kSlots> c{};
  return c;
}

int slot(int device_id) { return ((device_id % kSlots) + kSlots) % kSlots; }

}  // namespace

void count_task(int device_id) { counters()[static_cast<size_t>(slot(device_id))].fetch_add(1, std::memory_order_relaxed); }

std::vector<std::pair<int, uint64_t>> task_counts() {
  std::vector<std::pair<int, uint64_t>> out;
  for (int k = 0; k < kSlots; ++k)
    if (const uint64_t n = counters()[static_cast<size_t>(k)].load(std::memory_order_relaxed)) out.emplace_back(k, n);
  return out;
}

}  // namespace pypto_golden::sim
