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

std::string samples_list(const std::vector<double>& v) {
  std::string out = "[";
  for (size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + one_decimal(v[k]);
  return out + "]";
}

bool is_l3(const BenchStats& s) { return s.level != "l2"; }

std::string rank_label(const BenchStats& s, size_t r) {
  return "rank " + std::to_string(r) + (r < s.devices.size() ? " (device " + std::to_string(s.devices[r]) + ")" : "");
}

nlohmann::json stats_json(const SampleStats& d, const std::vector<double>& samples) {
  return {{"min", d.min}, {"median", d.median}, {"mean", d.mean}, {"max", d.max}, {"stdev", d.stdev},
          {"samples", samples}};
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
  return "[RUN]     raw n=" + std::to_string(s.samples.size()) + " " + s.metric + "=" + samples_list(s.samples);
}

void report_to_console(const BenchStats& s, bool raw, const BenchRun& run,
                       const std::function<void(const std::string&)>& line) {
  line("[RUN]   effective_us unavailable: sim platform has no device timing");
  line(stats_line(s));
  for (size_t r = 0; r < s.rank_samples.size(); ++r) {
    const SampleStats d = describe(s.rank_samples[r]);
    line("[RUN]     " + rank_label(s, r) + ": " + s.metric + " min=" + one_decimal(d.min) + " median=" +
         one_decimal(d.median) + " mean=" + one_decimal(d.mean) + " max=" + one_decimal(d.max));
  }
  if (raw) {
    line("[RUN]   raw samples: " + (is_l3(s) ? "ranks=" + std::to_string(s.rank_samples.size()) + " " : std::string()) +
         "rounds=" + std::to_string(s.rounds) + " warmup=" + std::to_string(s.warmup));
    line(raw_line(s));
    for (size_t r = 0; r < s.rank_samples.size(); ++r)
      line("[RUN]     rank " + std::to_string(r) + " raw n=" + std::to_string(s.rank_samples[r].size()) + " " + s.metric +
           "=" + samples_list(s.rank_samples[r]));
  }
  if (!is_l3(s)) return;
  char mean[64];
  std::snprintf(mean, sizeof mean, "%.0f", s.mean);
  line("[RUN] benchmark kernel=" + (run.kernel.empty() ? std::string("unknown") : run.kernel) + " " + s.level +
       "=1 rounds=" + std::to_string(s.rounds) + " ranks=" + std::to_string(s.rank_samples.size()) +
       " host_mean_us=" + mean);
}

std::string json_report(const BenchStats& s, const BenchRun& run, const BenchContext& context) {
  nlohmann::json doc = {
      {"context", context},
      {"kernel", run.kernel},
      {"platform", run.platform},
      {"rounds", s.rounds},
      {"warmup", s.warmup},
      {"level", s.level},
      {"effective_us", nullptr},  // the simulator has no device clock
      {s.metric, stats_json(describe(s.samples), s.samples)},
  };
  if (is_l3(s)) {
    nlohmann::json ranks = nlohmann::json::array();
    for (size_t r = 0; r < s.rank_samples.size(); ++r)
      ranks.push_back({{"rank", r},
                       {"device", r < s.devices.size() ? nlohmann::json(s.devices[r]) : nlohmann::json(nullptr)},
                       {s.metric, stats_json(describe(s.rank_samples[r]), s.rank_samples[r])}});
    doc["ranks"] = ranks;
  }
  return doc.dump(2) + "\n";
}

void report_to_json_file(const std::string& path, const BenchStats& s, const BenchRun& run,
                         const BenchContext& context) {
  const std::string doc = json_report(s, run, context);
  write_file_atomically(path, [&](int fd) { write_all(fd, doc.data(), doc.size(), path); });
}

}  // namespace pypto_golden
