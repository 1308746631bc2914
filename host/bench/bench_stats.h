// Statistics of benchmark samples and their report lines.
#pragma once

#include <string>
#include <vector>

namespace pypto_golden {

struct BenchStats {
  std::string metric = "host_us";  // what the samples measure (microseconds)
  int rounds = 0;
  int warmup = 0;
  std::vector<double> samples;     // one per measured round, in order
  double min = 0, median = 0, mean = 0, max = 0, stdev = 0;  // stdev: sample (n - 1)
};

BenchStats summarize(std::vector<double> samples, int rounds, int warmup, std::string metric);

// "[RUN]   host_us (100 rounds) min=1.0 median=1.2 mean=1.3 max=2.0 stdev=0.1"
std::string stats_line(const BenchStats& s);

// "[RUN]     raw n=100 host_us=[1.0, 1.2, ...]" (values rounded to 0.1)
std::string raw_line(const BenchStats& s);

// The JSON document written to PYPTO_BENCH_JSON.
std::string stats_json(const BenchStats& s, const std::string& kernel, const std::string& platform);

}  // namespace pypto_golden
