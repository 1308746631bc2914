// Benchmark mode (PYPTO_BENCH): the stepped-scalar rules checked before compile, and the
// benchmark stage run after the correctness dispatch and before validation.
#pragma once

#include "bench/bench_knobs.h"
#include "bench/bench_stats.h"
#include "run/native_spec.h"
#include "run/stage_log.h"
#include "sim/dispatch_session.h"

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pypto_golden {

// The rules for ScalarSpec(benchmark_step=...) (README "Benchmark mode"): never together
// with enable_chip_swimlane; and on a fresh compile, compile_runtime=True on a @pl.jit
// kernel and only in a run with resident specs (the L3 persistent-window benchmark). A
// RunFailure names every stepped scalar with every rule it breaks.
void check_stepped_scalars(const std::vector<NativeSpec>& specs, bool fresh_compile, bool jit_kernel,
                           bool chip_swimlane);

// Stepped scalars of a runtime_dir replay: the artifact cannot prove it forwards them, so
// the benchmark is skipped; returns the "[RUN] benchmark skipped: ..." line, or "".
std::string replay_skip_line(const std::vector<NativeSpec>& specs);

struct BenchTarget {
  std::string kernel;
  std::string platform;
};

// Times the dispatch loop, prints the report lines and, with PYPTO_BENCH_JSON, writes the
// JSON report (bench/bench_reporter.h). The loop continues `session`: with resident specs
// it is the correctness dispatch's (that dispatch counts as the first warmup, and resident
// buffers and windows carry on from it; stepped scalars get value + i * benchmark_step at
// the session's dispatch i), otherwise a fresh one. `initial` holds the non-resident InOut
// tensors as they were before the correctness dispatch (undefined elsewhere): every round
// starts from the same state, and the host tensors validation reads are never touched.
BenchStats run_benchmark(const BenchKnobs& knobs, const BenchTarget& target, const std::vector<NativeSpec>& specs,
                         const std::vector<at::Tensor>& host, const std::vector<at::Tensor>& initial,
                         sim::DispatchSession& session, const StageLog& log);

}  // namespace pypto_golden
