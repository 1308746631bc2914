// One harness run: compile -> generate inputs -> compute golden -> runtime -> validate.
#pragma once

#include "bench/bench_stats.h"
#include "report/run_record.h"
#include "run/stage_log.h"

#include <pybind11/pybind11.h>

#include <filesystem>
#include <optional>
#include <string>

namespace pypto_golden {

struct RunRequest {
  pybind11::object fn;          // the kernel (@pl.jit function or @pl.program)
  pybind11::object specs;       // list of TensorSpec / ScalarSpec
  pybind11::object golden_fn;   // or None
  pybind11::object config;      // a pypto.runtime.RunConfig
  pybind11::object compare_fn;  // dict name -> comparator, or None
  double rtol = 1e-5;
  double atol = 1e-5;
  bool compile_only = false;
  bool save_data = false;
  std::optional<std::filesystem::path> runtime_dir;  // replay an existing build
  std::optional<std::filesystem::path> golden_data;  // replay inputs and goldens
  LineSink sink;
  RunRecord* record = nullptr;  // when given, filled as the run goes (stages, outputs, end)
};

struct RunOutcome {
  bool passed = false;
  std::optional<std::string> error;
  double execution_time = 0.0;
  bool validated = false;  // the outputs were checked against a golden (none for compile_only or no golden)
  std::optional<std::string> work_dir;
  std::optional<BenchStats> bench;  // benchmark mode
};

// Runs the stages. Validation mismatches and harness-level problems (RunFailure: unusable
// runtime_dir or golden_data, corrupt snapshot files) come back as a failed outcome;
// everything else raises (SpecError, ArtifactError, SimError, DeviceUnavailableError, ...).
RunOutcome run_pipeline(const RunRequest& request);

}  // namespace pypto_golden
