#include "run/benchmark_stage.h"

#include "bench/bench_loop.h"
#include "bench/bench_reporter.h"
#include "run/resident_specs.h"
#include "run/run_errors.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"
#include "snapshot/atomic_file.h"

#include <ATen/ATen.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <limits>

namespace pypto_golden {

void check_stepped_scalars(const std::vector<NativeSpec>& specs, bool fresh_compile, bool jit_kernel,
                           bool chip_swimlane) {
  std::string message;  // every stepped scalar with every rule it breaks
  for (const auto& s : specs) {
    if (s.is_tensor || !s.stepped) continue;
    std::vector<std::string> broken;
    if (chip_swimlane)
      broken.push_back("cannot be combined with enable_chip_swimlane (one handle call may run several physical "
                       "passes with the same argument list)");
    if (fresh_compile && jit_kernel && !s.compile_runtime)
      broken.push_back("on a @pl.jit kernel needs compile_runtime=True (otherwise the compiler may fold the initial "
                       "value into the artifact)");
    if (fresh_compile && !has_residents(specs))
      broken.push_back("needs resident specs (the L3 persistent-window benchmark); this run has none, so every "
                       "launch would repeat one argument list");
    if (broken.empty()) continue;
    message += std::string(message.empty() ? "" : "; ") + "ScalarSpec '" + s.name + "' has benchmark_step, which ";
    for (size_t k = 0; k < broken.size(); ++k) message += (k ? ", and which " : "") + broken[k];
  }
  if (!message.empty()) throw RunFailure(message);
}

std::string replay_skip_line(const std::vector<NativeSpec>& specs) {
  std::string names;
  for (const auto& s : specs)
    if (!s.is_tensor && s.stepped) names += (names.empty() ? "'" : ", '") + s.name + "'";
  if (names.empty()) return "";
  return "[RUN] benchmark skipped: stepped scalar(s) " + names +
         " on a runtime_dir replay (the artifact's metadata cannot prove the scalar is forwarded rather than "
         "folded); recompile to benchmark it";
}

namespace {

// The largest value a stepped scalar reaches must fit its dtype.
void check_step_range(const NativeSpec& s, int64_t last_dispatch) {
  if (!c10::isIntegralType(s.dtype, /*includeBool=*/false)) return;
  const int64_t value = s.value.item().toLong();
  const int64_t step = s.step.toLong();
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  if (s.dtype == at::kChar) lo = -128, hi = 127;
  if (s.dtype == at::kByte) lo = 0, hi = 255;
  if (s.dtype == at::kInt) lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  const __int128 reached = static_cast<__int128>(value) + static_cast<__int128>(last_dispatch) * step;
  if (reached >= lo && reached <= hi) return;
  throw RunFailure("ScalarSpec '" + s.name + "' (" + torch_dtype_repr(s.dtype) + ", value " + std::to_string(value) +
                   ", benchmark_step " + std::to_string(step) + ") leaves [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "] by dispatch " + std::to_string(last_dispatch) +
                   " of the benchmark; lower PYPTO_BENCH_ROUNDS / PYPTO_BENCH_WARMUP or the step");
}

c10::Scalar stepped_value(const NativeSpec& s, int64_t dispatch) {
  if (s.step.isIntegral(false)) return c10::Scalar(s.value.item().toLong() + dispatch * s.step.toLong());
  return c10::Scalar(s.value.item().toDouble() + static_cast<double>(dispatch) * s.step.toDouble());
}

}  // namespace

BenchStats run_benchmark(const BenchKnobs& knobs, const BenchTarget& target, const std::vector<NativeSpec>& specs,
                         const std::vector<at::Tensor>& host, const std::vector<at::Tensor>& initial,
                         sim::DispatchSession& session, const StageLog& log) {
  const bool resident = has_residents(specs);
  // With resident specs the correctness dispatch was the first warmup (and is session dispatch 0).
  const int warmup = resident ? std::max(knobs.warmup, 1) : knobs.warmup;
  const int untimed = resident ? warmup - 1 : warmup;
  const int64_t last = session.dispatches() + untimed + knobs.rounds - 1;
  std::vector<sim::HostArg> args(specs.size());
  std::vector<size_t> stepped;
  for (size_t k = 0; k < specs.size(); ++k) {
    const NativeSpec& s = specs[k];
    args[k].is_tensor = s.is_tensor;
    if (!s.is_tensor) {
      args[k].scalar = s.value.item();
      if (s.stepped) {
        check_step_range(s, last);
        stepped.push_back(k);
      }
    } else if (s.residency != Residency::None) {
      args[k].tensor = host[k];  // the session holds its device buffer; never uploaded or read back again
      args[k].resident = true;
    } else if (s.direction == Direction::In) {
      args[k].tensor = host[k];
    } else if (s.direction == Direction::InOut) {
      // Every round starts from the initial state; results land in a scratch buffer.
      args[k].tensor = initial[k];
      args[k].result = at::empty_like(host[k]);
    } else {
      // A round's pure Out is handed over and dropped: no read-back copy.
      args[k].hand_over_out(host[k]);
    }
  }
  const BeforeDispatch step = [&](int64_t dispatch, std::vector<sim::HostArg>& a) {
    for (size_t k : stepped) a[k].scalar = stepped_value(specs[k], dispatch);
  };
  TimedDispatches timed;
  {
    pybind11::gil_scoped_release release;
    const DescribeDispatch describe = [&](int64_t dispatch) {
      std::string out;
      for (size_t k : stepped) {
        const c10::Scalar v = stepped_value(specs[k], dispatch);
        out += (out.empty() ? "" : ", ") + specs[k].name + "=" + python_scalar_repr(v);
      }
      return out;
    };
    timed = time_dispatches(session, args, knobs.rounds, untimed, stepped.empty() ? nullptr : step,
                            stepped.empty() ? nullptr : describe);
  }
  BenchStats stats = summarize(std::move(timed.host_us), knobs.rounds, warmup, "host_us");
  const std::vector<int>& devices = session.program().devices;
  if (!devices.empty()) {
    stats.level = resident ? "l3_resident" : "l3";
    stats.devices = devices;
    stats.rank_samples = std::move(timed.rank_us);
  }
  const BenchRun run{target.kernel, target.platform};
  report_to_console(stats, knobs.raw, run, [&](const std::string& line) { log.line(line); });
  if (!knobs.json_path.empty()) {
    try {
      report_to_json_file(knobs.json_path, stats, run, current_bench_context(session.device().pool().size()));
    } catch (const FileWriteError& e) {
      throw RunFailure(std::string("PYPTO_BENCH_JSON: ") + e.what());
    }
  }
  return stats;
}

}  // namespace pypto_golden
