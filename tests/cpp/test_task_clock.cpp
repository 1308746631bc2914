// The recorder's clock: its ticks never go back, and converted with ns_per_tick they measure
// the time that passed (whether they are the TSC's or steady_clock's).
#include "sim/task_clock.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using pypto_golden::sim::TaskClock;

TEST_CASE("task clock ticks convert to the nanoseconds that passed") {
  const TaskClock clock;
  const auto start = std::chrono::steady_clock::now();
  const int64_t first = clock.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const int64_t second = clock.now();
  const double slept_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  CHECK(first >= 0);
  CHECK(second > first);
  const double measured_ns = static_cast<double>(second - first) * clock.ns_per_tick();
  // Only the conversion is checked, not the machine's speed: the ticks cover the sleep and
  // no more than the steady clock saw around it.
  CHECK(measured_ns >= 30e6 * 0.99);
  CHECK(measured_ns <= slept_ns * 1.01);
  if (!clock.uses_tsc()) CHECK(clock.ns_per_tick() == 1.0);
}
