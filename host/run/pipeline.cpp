#include "run/pipeline.h"

#include "run/golden_stage.h"
#include "run/kernel_compile.h"
#include "run/run_errors.h"
#include "run/tensor_factory.h"
#include "run/validation_stage.h"
#include "sim/device_registry.h"
#include "sim/dispatch.h"
#include "sim/program_loader.h"

#include <torch/csrc/utils/pybind.h>

#include <chrono>

namespace py = pybind11;

namespace pypto_golden {
namespace {

bool is_simulator(const std::string& platform) { return platform == "a2a3sim" || platform == "a5sim"; }

void require_known_platform(const std::string& platform) {
  if (platform != "a2a3sim" && platform != "a5sim" && platform != "a2a3" && platform != "a5")
    throw py::value_error("Invalid platform '" + platform + "'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.");
}

// Dispatches the build on the platform's runtime and reads the outputs back into `host`.
void run_on_device(const std::string& platform, int device_id, const std::filesystem::path& work_dir,
                   const std::vector<NativeSpec>& specs, const std::vector<at::Tensor>& host) {
  if (!is_simulator(platform))
    throw DeviceUnavailableError("platform '" + platform +
                                 "' needs an Ascend NPU runtime (CANN and a device), which this machine does "
                                 "not have; run on the simulator with -p " + platform + "sim");
  auto program = sim::load_program_cached(work_dir);
  std::vector<sim::HostArg> args(specs.size());
  for (size_t k = 0; k < specs.size(); ++k) {
    args[k].is_tensor = specs[k].is_tensor;
    if (specs[k].is_tensor) args[k].tensor = host[k];
    else args[k].scalar = specs[k].value.item();
  }
  py::gil_scoped_release release;
  sim::dispatch(*program, args, sim::simulated_device(device_id));
}

}  // namespace

RunOutcome run_pipeline(const RunRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  StageLog log(req.sink);
  RunOutcome outcome;

  std::vector<NativeSpec> specs = read_specs(req.specs);
  const std::string platform = py::str(req.config.attr("platform"));
  const int device_id = py::int_(req.config.attr("device_id"));
  require_known_platform(platform);

  CompiledKernel kernel;
  log.stage("compile", [&] { kernel = compile_kernel(req.fn, specs, req.config, log); });
  outcome.work_dir = kernel.work_dir.string();
  if (req.compile_only) {
    outcome.passed = true;
    outcome.execution_time = seconds_since(start);
    log.line("[RUN] PASS (" + seconds_text(outcome.execution_time) + "s)");
    return outcome;
  }

  std::vector<at::Tensor> host(specs.size());
  log.stage("generate inputs", [&] {
    for (size_t k = 0; k < specs.size(); ++k)
      if (specs[k].is_tensor) host[k] = create_host_tensor(specs[k]);
  });

  const bool has_golden = !req.golden_fn.is_none();
  std::map<std::string, at::Tensor> expected;
  if (has_golden) log.stage("compute golden", [&] { expected = compute_golden(req.golden_fn, specs, host); });

  log.stage("runtime", [&] { run_on_device(platform, device_id, kernel.work_dir, specs, host); });

  if (has_golden) {
    ValidationReport report;
    log.stage("validate", [&] {
      report = validate_outputs(specs, host, expected, req.compare_fn, req.rtol, req.atol, log);
    });
    if (!report.passed) {
      outcome.error = report.error;
      outcome.execution_time = seconds_since(start);
      return outcome;
    }
  }
  outcome.passed = true;
  outcome.execution_time = seconds_since(start);
  log.line("[RUN] PASS (" + seconds_text(outcome.execution_time) + "s" +
           (has_golden ? "" : ", validation skipped: no golden_fn or golden_data") + ")");
  return outcome;
}

}  // namespace pypto_golden
