// Benchmark mode (PYPTO_BENCH): the stepped-scalar rules checked before compile, and the
// benchmark stage run after the correctness dispatch and before validation.
#pragma once

#include "bench/bench_knobs.h"
#include "bench/bench_stats.h"
#include "run/native_spec.h"
#include "run/stage_log.h"

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pypto_golden {

// The rules for ScalarSpec(benchmark_step=...) (README "Benchmark mode"), on a fresh
// compile: not together with enable_chip_swimlane, compile_runtime=True on a @pl.jit
// kernel, and resident specs (which the simulator does not have yet, so every stepped
// scalar is refused). A broken rule is a RunFailure naming the scalar and the rule.
void check_stepped_scalars(const std::vector<NativeSpec>& specs, bool jit_kernel, bool chip_swimlane);

// Stepped scalars of a runtime_dir replay: the artifact cannot prove it forwards them, so
// the benchmark is skipped; returns the "[RUN] benchmark skipped: ..." line, or "".
std::string replay_skip_line(const std::vector<NativeSpec>& specs);

struct BenchTarget {
  std::filesystem::path work_dir;
  std::string kernel;
  std::string platform;
  int device_id = 0;
};

// Times the dispatch loop, prints the report lines and, with PYPTO_BENCH_JSON, writes the
// JSON report (bench/bench_reporter.h). `initial` holds the InOut tensors as they were
// before the correctness dispatch (undefined elsewhere): every round starts from the same
// state, and the host tensors validation reads are never touched.
BenchStats run_benchmark(const BenchKnobs& knobs, const BenchTarget& target, const std::vector<NativeSpec>& specs,
                         const std::vector<at::Tensor>& host, const std::vector<at::Tensor>& initial,
                         const StageLog& log);

}  // namespace pypto_golden
