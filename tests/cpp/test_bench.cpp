#include "bench/bench_knobs.h"
#include "bench/bench_reporter.h"
#include "bench/bench_stats.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <vector>

using namespace pypto_golden;

TEST_CASE("PYPTO_BENCH truthiness") {
  CHECK_FALSE(env_truthy(nullptr));
  for (const char* off : {"", "0", "false", "False", "FALSE", "no", "NO", "off", " Off "}) CHECK_FALSE(env_truthy(off));
  for (const char* on : {"1", "true", "yes", "on", "2", "bench"}) CHECK(env_truthy(on));
}

TEST_CASE("knobs are read per call, with warnings for malformed counts") {
  std::vector<std::string> warnings;
  auto warn = [&](const std::string& w) { warnings.push_back(w); };
  setenv("PYPTO_BENCH", "1", 1);
  setenv("PYPTO_BENCH_ROUNDS", "12", 1);
  setenv("PYPTO_BENCH_WARMUP", "0", 1);
  unsetenv("PYPTO_BENCH_RAW");
  BenchKnobs k = read_bench_knobs(warn);
  CHECK((k.enabled && k.rounds == 12 && k.warmup == 0 && !k.raw));
  setenv("PYPTO_BENCH_ROUNDS", "1.5", 1);
  setenv("PYPTO_BENCH_WARMUP", "x", 1);
  k = read_bench_knobs(warn);
  CHECK((k.rounds == 100 && k.warmup == 5));
  CHECK(warnings == std::vector<std::string>{
                        "[RUN]   ignoring PYPTO_BENCH_ROUNDS='1.5' (want an integer >= 1); using 100",
                        "[RUN]   ignoring PYPTO_BENCH_WARMUP='x' (want an integer >= 0); using 5"});
  setenv("PYPTO_BENCH", "off", 1);
  CHECK_FALSE(read_bench_knobs(warn).enabled);
  for (const char* v : {"PYPTO_BENCH", "PYPTO_BENCH_ROUNDS", "PYPTO_BENCH_WARMUP"}) unsetenv(v);
}

TEST_CASE("statistics and report lines") {
  BenchStats s = summarize({4.0, 1.0, 3.0, 2.0}, 4, 1, "host_us");
  CHECK(s.min == 1.0);
  CHECK(s.max == 4.0);
  CHECK(s.median == 2.5);
  CHECK(s.mean == 2.5);
  CHECK(s.stdev == doctest::Approx(1.2909944487));
  CHECK(stats_line(s) == "[RUN]   host_us (4 rounds) min=1.0 median=2.5 mean=2.5 max=4.0 stdev=1.3");
  CHECK(raw_line(s) == "[RUN]     raw n=4 host_us=[4.0, 1.0, 3.0, 2.0]");
  CHECK(summarize({5.0}, 1, 0, "host_us").stdev == 0.0);
}
