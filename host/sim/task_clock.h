// The task recorder's clock. Two reads per task are most of what the swimlane costs a
// dispatch of small tasks, so it reads the CPU's time-stamp counter where that ticks at one
// rate on every core (x86 with an invariant TSC: ~10 ns a read, against ~25 ns for
// steady_clock) and converts ticks to nanoseconds once, when the records are read;
// elsewhere its ticks are steady_clock's nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace pypto_golden::sim {

class TaskClock {
 public:
  TaskClock();

  // Ticks since the clock was made.
  int64_t now() const {
#if defined(__x86_64__) || defined(__i386__)
    if (tsc_) return static_cast<int64_t>(__rdtsc() - tsc_origin_);
#endif
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count();
  }
  // Nanoseconds per tick, measured from the clock's making to this call (1 without a TSC).
  double ns_per_tick() const;
  // Whether ticks are the time-stamp counter's (for tests).
  bool uses_tsc() const { return tsc_; }

 private:
  bool tsc_ = false;
  uint64_t tsc_origin_ = 0;
  std::chrono::steady_clock::time_point origin_;
};

}  // namespace pypto_golden::sim
