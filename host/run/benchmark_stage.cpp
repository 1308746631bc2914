#include "run/benchmark_stage.h"

#include "bench/bench_loop.h"
#include "bench/bench_reporter.h"
#include "run/run_errors.h"
#include "sim/device_registry.h"
#include "sim/program_loader.h"
#include "snapshot/atomic_file.h"

#include <ATen/ATen.h>
#include <pybind11/pybind11.h>

namespace pypto_golden {

void check_stepped_scalars(const std::vector<NativeSpec>& specs, bool jit_kernel, bool chip_swimlane) {
  for (const auto& s : specs) {
    if (s.is_tensor || !s.stepped) continue;
    const std::string who = "ScalarSpec '" + s.name + "' has benchmark_step, ";
    if (chip_swimlane)
      throw RunFailure(who + "which cannot be combined with enable_chip_swimlane (one handle call may run several "
                             "physical passes with the same argument list)");
    if (jit_kernel && !s.compile_runtime)
      throw RunFailure(who + "which on a @pl.jit kernel needs compile_runtime=True (otherwise the compiler may fold "
                             "the initial value into the artifact)");
    throw RunFailure(who + "which needs resident specs (the L3 persistent-window benchmark); this run has none, and "
                           "the simulator does not support resident tensors yet");
  }
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

BenchStats run_benchmark(const BenchKnobs& knobs, const BenchTarget& target, const std::vector<NativeSpec>& specs,
                         const std::vector<at::Tensor>& host, const std::vector<at::Tensor>& initial,
                         const StageLog& log) {
  auto program = sim::load_program_cached(target.work_dir);
  std::vector<sim::HostArg> args(specs.size());
  for (size_t k = 0; k < specs.size(); ++k) {
    const NativeSpec& s = specs[k];
    args[k].is_tensor = s.is_tensor;
    if (!s.is_tensor) {
      args[k].scalar = s.value.item();
    } else if (s.direction == Direction::In) {
      args[k].tensor = host[k];
    } else {
      // Results land in scratch buffers; InOut rounds all start from the initial state.
      args[k].tensor = s.direction == Direction::InOut ? initial[k] : at::empty_like(host[k]);
      args[k].result = at::empty_like(host[k]);
    }
  }
  // Held for the whole loop: a device replaced meanwhile (PYPTO_SIM_* changed) stays alive.
  const std::shared_ptr<sim::Device> device = sim::simulated_device(target.device_id);
  std::vector<double> samples;
  {
    pybind11::gil_scoped_release release;
    samples = time_dispatches(*program, args, *device, knobs.rounds, knobs.warmup);
  }
  BenchStats stats = summarize(std::move(samples), knobs.rounds, knobs.warmup, "host_us");
  report_to_console(stats, knobs.raw, [&](const std::string& line) { log.line(line); });
  if (!knobs.json_path.empty()) {
    try {
      report_to_json_file(knobs.json_path, stats, {target.kernel, target.platform},
                          current_bench_context(device->pool().size()));
    } catch (const FileWriteError& e) {
      throw RunFailure(std::string("PYPTO_BENCH_JSON: ") + e.what());
    }
  }
  return stats;
}

}  // namespace pypto_golden
