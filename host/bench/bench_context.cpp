#include "bench/bench_context.h"

#include <unistd.h>

#include <climits>
#include <ctime>
#include <thread>

// Set for this file alone by host/CMakeLists.txt.
#ifndef PYPTO_GOLDEN_VERSION
#error "PYPTO_GOLDEN_VERSION, PYPTO_GOLDEN_TORCH_VERSION and PYPTO_GOLDEN_BUILD_TYPE come from CMake"
#endif

namespace pypto_golden {
namespace {

}  // namespace

std::string clock_text(const char* format, bool utc) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (utc)
    gmtime_r(&now, &tm);
  else
    localtime_r(&now, &tm);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

BenchContext current_bench_context(int sim_threads) {
  BenchContext c;
  c.date = clock_text("%Y-%m-%dT%H:%M:%SZ", true);
  c.host_name = host_name();
  c.num_cpus = static_cast<int>(std::thread::hardware_concurrency());
  c.sim_threads = sim_threads;
  c.build_type = PYPTO_GOLDEN_BUILD_TYPE;
  c.torch_version = PYPTO_GOLDEN_TORCH_VERSION;
  c.pypto_golden_version = PYPTO_GOLDEN_VERSION;
  return c;
}

}  // namespace pypto_golden
