#include "bench/bench_reporter.h"

#include "snapshot/atomic_file.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace pypto_golden {
namespace {

std::string one_decimal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BenchContext, date, host_name, num_cpus, sim_threads, build_type, torch_version,
                                   pypto_golden_version)

std::string stats_line(const BenchStats& s) {
  return "[RUN]   " + s.metric + " (" + std::to_string(s.samples.size()) + " rounds) min=" + one_decimal(s.min) +
         " median=" + one_decimal(s.median) + " mean=" + one_decimal(s.mean) + " max=" + one_decimal(s.max) +
         " stdev=" + one_decimal(s.stdev);
}

std::string raw_line(const BenchStats& s) {
  std::string out = "[RUN]     raw n=" + std::to_string(s.samples.size()) + " " + s.metric + "=[";
  for (size_t k = 0; k < s.samples.size(); ++k) out += (k ? ", " : "") + one_decimal(s.samples[k]);
  return out + "]";
}

void report_to_console(const BenchStats& s, bool raw, const std::function<void(const std::string&)>& line) {
  line("[RUN]   effective_us unavailable: sim platform has no device timing");
  line(stats_line(s));
  if (!raw) return;
  line("[RUN]   raw samples: rounds=" + std::to_string(s.rounds) + " warmup=" + std::to_string(s.warmup));
  line(raw_line(s));
}

std::string json_report(const BenchStats& s, const BenchRun& run, const BenchContext& context) {
  nlohmann::json doc = {
      {"context", context},
      {"kernel", run.kernel},
      {"platform", run.platform},
      {"rounds", s.rounds},
      {"warmup", s.warmup},
      {"effective_us", nullptr},  // the simulator has no device clock
      {s.metric,
       {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"max", s.max}, {"stdev", s.stdev},
        {"samples", s.samples}}},
  };
  return doc.dump(2) + "\n";
}

void report_to_json_file(const std::string& path, const BenchStats& s, const BenchRun& run,
                         const BenchContext& context) {
  const std::string doc = json_report(s, run, context);
  write_file_atomically(path, [&](int fd) { write_all(fd, doc.data(), doc.size(), path); });
}

}  // namespace pypto_golden
