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

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace

BenchContext current_bench_context(int sim_threads) {
  BenchContext c;
  c.date = utc_now_iso8601();
  c.host_name = host_name();
  c.num_cpus = static_cast<int>(std::thread::hardware_concurrency());
  c.sim_threads = sim_threads;
  c.build_type = PYPTO_GOLDEN_BUILD_TYPE;
  c.torch_version = PYPTO_GOLDEN_TORCH_VERSION;
  c.pypto_golden_version = PYPTO_GOLDEN_VERSION;
  return c;
}

}  // namespace pypto_golden
