#include "bench/bench_stats.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace pypto_golden {
namespace {

std::string one_decimal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

BenchStats summarize(std::vector<double> samples, int rounds, int warmup, std::string metric) {
  BenchStats s;
  s.metric = std::move(metric);
  s.rounds = rounds;
  s.warmup = warmup;
  s.samples = std::move(samples);
  if (s.samples.empty()) return s;
  std::vector<double> sorted = s.samples;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(ss / static_cast<double>(n - 1));
  }
  return s;
}

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

std::string stats_json(const BenchStats& s, const std::string& kernel, const std::string& platform) {
  nlohmann::json doc = {
      {"kernel", kernel},
      {"platform", platform},
      {"rounds", s.rounds},
      {"warmup", s.warmup},
      {"effective_us", nullptr},  // the simulator has no device clock
      {s.metric,
       {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"max", s.max}, {"stdev", s.stdev},
        {"samples", s.samples}}},
  };
  return doc.dump(2) + "\n";
}

}  // namespace pypto_golden
