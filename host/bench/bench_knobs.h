// The benchmark-mode environment knobs, read afresh for every run so a sweep can change
// them between calls.
#pragma once

#include <functional>
#include <string>

namespace pypto_golden {

struct BenchKnobs {
  bool enabled = false;  // PYPTO_BENCH
  int rounds = 100;      // PYPTO_BENCH_ROUNDS, >= 1
  int warmup = 5;        // PYPTO_BENCH_WARMUP, >= 0
  bool raw = false;      // PYPTO_BENCH_RAW
  std::string json_path; // PYPTO_BENCH_JSON ("" = none)
};

// Off for unset, empty, 0, false, no, off (any case, surrounding spaces ignored); on otherwise.
bool env_truthy(const char* value);

// Reads the knobs; a malformed count is reported through `warn` with the line
//   [RUN]   ignoring PYPTO_BENCH_ROUNDS='abc' (want an integer >= 1); using 100
// and the default is used.
BenchKnobs read_bench_knobs(const std::function<void(const std::string&)>& warn);

}  // namespace pypto_golden
