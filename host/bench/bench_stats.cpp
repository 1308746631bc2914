#include "bench/bench_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pypto_golden {

SampleStats describe(const std::vector<double>& samples) {
  SampleStats s;
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
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

BenchStats summarize(std::vector<double> samples, int rounds, int warmup, std::string metric) {
  BenchStats s;
  s.metric = std::move(metric);
  s.rounds = rounds;
  s.warmup = warmup;
  s.samples = std::move(samples);
  const SampleStats d = describe(s.samples);
  s.min = d.min;
  s.median = d.median;
  s.mean = d.mean;
  s.max = d.max;
  s.stdev = d.stdev;
  return s;
}

}  // namespace pypto_golden
