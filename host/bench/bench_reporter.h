// The reports of a benchmark: the console's [RUN] lines and the JSON document written to
// PYPTO_BENCH_JSON (the statistics themselves are bench_stats.h's).
#pragma once

#include "bench/bench_context.h"
#include "bench/bench_stats.h"

#include <functional>
#include <string>

namespace pypto_golden {

// "[RUN]   host_us (100 rounds) min=1.0 median=1.2 mean=1.3 max=2.0 stdev=0.1"
std::string stats_line(const BenchStats& s);

// "[RUN]     raw n=100 host_us=[1.0, 1.2, ...]" (values rounded to 0.1)
std::string raw_line(const BenchStats& s);

// What the reports name the benchmarked kernel by.
struct BenchRun {
  std::string kernel;
  std::string platform;
};

// The console report, one call of `line` a line:
//   [RUN]   effective_us unavailable: sim platform has no device timing
//   <stats_line>
// an L3 run then gives each rank's chip time per round:
//   [RUN]     rank 0 (device 3): host_us min=… median=… mean=… max=…
// with `raw`:
//   [RUN]   raw samples: [ranks=2 ]rounds=N warmup=W
//   <raw_line>
//   [RUN]     rank 0 raw n=N host_us=[…]            (L3)
// and an L3 run ends with the detail line (l3_resident=1 when it had resident specs):
//   [RUN] benchmark kernel=<kernel> l3=1 rounds=N ranks=2 host_mean_us=<mean, no decimals>
// Only the first line holds the token effective_us, so one line per run matches a CI grep.
void report_to_console(const BenchStats& s, bool raw, const BenchRun& run,
                       const std::function<void(const std::string&)>& line);

// The JSON document (keys sorted, indented by two):
//   "context": {BenchContext's fields}, "effective_us": null (the simulator has no device
//   clock), "<metric>": {"max", "mean", "median", "min", "samples", "stdev"}, "kernel",
//   "platform", "rounds", "warmup", "level"; an L3 run adds "ranks": [{"rank", "device",
//   "<metric>": {the same statistics of the rank's chip time}}]
std::string json_report(const BenchStats& s, const BenchRun& run, const BenchContext& context);

// Writes json_report(...) to `path` atomically (a reader never sees half a document); throws
// FileWriteError.
void report_to_json_file(const std::string& path, const BenchStats& s, const BenchRun& run,
                         const BenchContext& context);

}  // namespace pypto_golden
