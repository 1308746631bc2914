// The machine and build a benchmark ran on: the "context" block of the JSON report, so that
// a dashboard compares figures only from like runs (google/benchmark's JSON carries the same
// kind of block).
#pragma once

#include <string>

namespace pypto_golden {

struct BenchContext {
  std::string date;                  // when the report was made, ISO-8601 UTC: "2026-12-01T10:31:57Z"
  std::string host_name;
  int num_cpus = 0;                  // cores online
  int sim_threads = 0;               // worker threads of the simulated device (PYPTO_SIM_THREADS)
  std::string build_type;            // CMAKE_BUILD_TYPE of this build ("RelWithDebInfo")
  std::string torch_version;         // the torch built against, which the run uses
  std::string pypto_golden_version;
};

// Now, formatted by strftime's `format`, in UTC or local time.
std::string clock_text(const char* format, bool utc);

// This machine's name (gethostname); empty when it has none.
std::string host_name();

// This process's context now; `sim_threads` is the benchmarked device's pool size.
BenchContext current_bench_context(int sim_threads);

}  // namespace pypto_golden
