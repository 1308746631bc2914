// Statistics of benchmark samples: pure functions, no output (the report lines and the JSON
// document are bench_reporter.h's).
#pragma once

#include <string>
#include <vector>

namespace pypto_golden {

// The fields of a benchmark result, declared once: X(name, type, initial value, doc). The
// struct below, the binding's dict and field list, and golden.BenchStats (pylib/golden/bench.py)
// are made from this list.
#define PYPTO_BENCH_STATS_FIELDS(X)                                                            \
  X(metric, std::string, "host_us", "what the samples measure (microseconds)")                 \
  X(rounds, int, 0, "timed rounds")                                                            \
  X(warmup, int, 0, "untimed rounds before them")                                              \
  X(samples, std::vector<double>, {}, "one sample per timed round, in order")                  \
  X(min, double, 0, "the smallest sample")                                                     \
  X(median, double, 0, "the median sample (the mean of the middle two for an even count)")     \
  X(mean, double, 0, "the mean of the samples")                                                \
  X(max, double, 0, "the largest sample")                                                      \
  X(stdev, double, 0, "the sample standard deviation (n - 1; 0 for one sample)")                \
  X(level, std::string, "l2", "what ran: l2 (one device), l3 (ranks), l3_resident (ranks, resident specs)")   \
  X(devices, std::vector<int>, {}, "L3: the device id of each rank")                                      \
  X(rank_samples, std::vector<std::vector<double>>, {},                                                  \
    "L3: per rank, the host time its chip programs ran in each timed round")

struct BenchStats {
#define PYPTO_BENCH_STATS_MEMBER(name, type, init, doc) type name = init;
  PYPTO_BENCH_STATS_FIELDS(PYPTO_BENCH_STATS_MEMBER)
#undef PYPTO_BENCH_STATS_MEMBER
};

// The order statistics of one series of samples (all zero for none).
struct SampleStats {
  double min = 0, median = 0, mean = 0, max = 0, stdev = 0;
};
SampleStats describe(const std::vector<double>& samples);

BenchStats summarize(std::vector<double> samples, int rounds, int warmup, std::string metric);

}  // namespace pypto_golden
