#include "sim/task_clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace pypto_golden::sim {
namespace {

// CPUID leaf 0x80000007, EDX bit 8: the TSC runs at a constant rate in every power state
// (Linux shows it as constant_tsc and nonstop_tsc).
bool invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool invariant = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007) return false;
    if (!__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx)) return false;
    return (edx & (1u << 8)) != 0;
  }();
  return invariant;
#else
  return false;
#endif
}

}  // namespace

TaskClock::TaskClock() : tsc_(invariant_tsc()), origin_(std::chrono::steady_clock::now()) {
#if defined(__x86_64__) || defined(__i386__)
  if (tsc_) tsc_origin_ = __rdtsc();
#endif
}

double TaskClock::ns_per_tick() const {
  if (!tsc_) return 1.0;
  const int64_t ticks = now();
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - origin_).count();
  return ticks > 0 ? ns / static_cast<double>(ticks) : 1.0;
}

}  // namespace pypto_golden::sim
