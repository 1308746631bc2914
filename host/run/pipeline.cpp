#include "run/pipeline.h"

#include "report/dfx_outputs.h"
#include "report/html_report.h"
#include "run/benchmark_stage.h"
#include "run/golden_stage.h"
#include "run/kernel_compile.h"
#include "run/memory_budget.h"
#include "run/platforms.h"
#include "run/resident_specs.h"
#include "run/run_errors.h"
#include "run/snapshot_stage.h"
#include "run/tensor_factory.h"
#include "run/validation_stage.h"
#include "sim/device.h"
#include "sim/device_registry.h"
#include "sim/dispatch.h"
#include "sim/dispatch_session.h"
#include "sim/program_loader.h"
#include "tensor/flat_index.h"
#include "tensor/lazy_copy.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/utils/pybind.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace py = pybind11;

namespace pypto_golden {
namespace {

// The never-written elements of output k as a mask shaped like it, when it is a pure Out
// that `device` poisoned. Exactly those the kernel never wrote when the dispatch tracked its
// writes (`tracked`, DispatchReport::unwritten); otherwise, when it is not bool (whose
// poison is a value) and the golden has its shape and dtype, its elements holding the
// poison where the golden expects something else (an integer's poison is also a value a
// kernel computes). Undefined when there are none, or when the output is not such a pure
// Out. Looked for in failing outputs only: a passing run pays no pass over its outputs for it.
at::Tensor unwritten_mask(const NativeSpec& spec, const at::Tensor& actual,
                          const std::map<std::string, at::Tensor>& expected, const sim::Device& device,
                          const std::optional<sim::ElementRuns>& tracked) {
  if (spec.direction != Direction::Out || !device.poisons_outputs() || !actual.defined()) return at::Tensor();
  if (tracked) {
    if (tracked->empty()) return at::Tensor();
    at::Tensor mask = at::zeros({actual.numel()}, actual.options().dtype(at::kBool));
    bool* m = mask.data_ptr<bool>();
    for (const auto& [begin, end] : *tracked) std::fill(m + begin, m + end, true);
    return mask.reshape(actual.sizes());
  }
  const auto golden = expected.find(spec.name);
  if (actual.scalar_type() == at::kBool || golden == expected.end() || !golden->second.defined() ||
      golden->second.scalar_type() != actual.scalar_type() || !golden->second.sizes().equals(actual.sizes()))
    return at::Tensor();
  py::gil_scoped_release release;
  at::Tensor mask = sim::Device::poison_mask_against(actual, golden->second);
  return mask.any().item<bool>() ? mask : at::Tensor();
}

// What a failing output's report adds when the kernel left part of a pure Out unwritten.
std::string unwritten_note(const NativeSpec& spec, const at::Tensor& actual,
                           const std::map<std::string, at::Tensor>& expected, const sim::Device& device,
                           const std::optional<sim::ElementRuns>& tracked) {
  const at::Tensor mask = unwritten_mask(spec, actual, expected, device, tracked);
  if (!mask.defined()) return "";
  const at::Tensor flat = mask.reshape({-1});
  const int64_t count = flat.sum().item<int64_t>();
  const int64_t first = flat.to(at::kByte).argmax().item<int64_t>();  // the first of the maxima
  return "    never written: " + std::to_string(count) + " of " + std::to_string(actual.numel()) + " elements of '" +
         spec.name + "' (the first at index " + python_shape_repr(unravel(first, actual.sizes())) +
         "). A pure pl.Out is not uploaded, so it starts uninitialised on the device (poisoned on the "
         "simulator): write every element, or declare it pl.InOut (with an init_value). To reproduce "
         "hardware whose fresh buffers happen to be zero, run with PYPTO_SIM_OUT_INIT=zero.";
}

// The HTML report's pictures of the failing outputs, with the never-written elements of a
// pure Out marked.
void draw_failures(RunRecord& record, const std::vector<NativeSpec>& specs, const std::vector<at::Tensor>& host,
                   const std::map<std::string, at::Tensor>& expected, const sim::Device& device,
                   const std::vector<std::optional<sim::ElementRuns>>& unwritten) {
  for (auto& out : record.outputs) {
    if (out.passed) continue;
    const auto golden = expected.find(out.name);
    if (golden == expected.end() || !golden->second.defined()) continue;
    for (size_t k = 0; k < specs.size(); ++k) {
      if (specs[k].name != out.name || !golden->second.sizes().equals(host[k].sizes())) continue;
      const at::Tensor mask = unwritten_mask(specs[k], host[k], expected, device, unwritten[k]);
      py::gil_scoped_release release;
      out.picture = draw_difference(host[k], golden->second, mask);
    }
  }
}

// The swimlane's first tasks, for the HTML report's picture of it.
void keep_swimlane(RunRecord& record, const std::vector<sim::TaskRecord>& tasks) {
  record.swimlane_total = tasks.size();
  for (size_t k = 0; k < tasks.size() && k < kReportSwimlaneTasks; ++k)
    record.swimlane.push_back({*tasks[k].name, tasks[k].device, tasks[k].lane, tasks[k].start_ns / 1e3,
                               tasks[k].end_ns / 1e3});
}

// A replayed build runs with the scalar values compiled into it, whatever the specs say now.
void warn_specialised_scalars(const sim::Function& entry, const std::vector<NativeSpec>& specs,
                              const std::filesystem::path& build, const StageLog& log) {
  for (const auto& p : entry.params) {
    if (p.is_tensor || p.runtime_scalar || p.specialised_text.empty()) continue;
    for (const auto& s : specs)
      if (s.name == p.name && !s.is_tensor && s.value.item().toDouble() != p.specialised_value)
        log.line("[RUN]   warning: ScalarSpec '" + s.name + "' is " + python_scalar_repr(s.value.item()) + ", but the build " +
                 build.string() + " was specialised on " + s.name + "=" + p.specialised_text +
                 ": the kernel runs with " + p.specialised_text +
                 " (compiled in); recompile, or give the scalar compile_runtime=True");
  }
}

// Whether an init_value is a callable (torch.randn, torch.rand, a function): the inputs may
// differ from run to run, so a failure says which seed drew them.
bool draws_random_inputs(const std::vector<NativeSpec>& specs) {
  for (const auto& s : specs)
    if (s.is_tensor && s.init_value && PyCallable_Check(s.init_value.ptr())) return true;
  return false;
}

// Dispatches the build as the session's next dispatch; the outputs replace their `host`
// tensors (resident ones are read back into them: this is the session's first dispatch).
// `persistent`: the launches that follow keep the windows (benchmark mode), so a signal the
// kernel leaves set is worth a warning.
// Returns, per spec, the elements of a pure Out the kernel never wrote, where the dispatch
// tracked them (DispatchReport::unwritten).
std::vector<std::optional<sim::ElementRuns>> run_on_device(sim::DispatchSession& session,
                                                           const std::vector<NativeSpec>& specs,
                                                           std::vector<at::Tensor>& host, const std::string& kernel,
                                                           bool persistent, const StageLog& log,
                                                           sim::TaskRecorder* recorder) {
  std::vector<sim::HostArg> args(specs.size());
  for (size_t k = 0; k < specs.size(); ++k) {
    args[k].is_tensor = specs[k].is_tensor;
    args[k].resident = specs[k].residency != Residency::None;
    if (!specs[k].is_tensor) {
      args[k].scalar = specs[k].value.item();
    } else if (args[k].resident || specs[k].direction == Direction::In) {
      args[k].tensor = host[k];
    } else {
      // Outputs are handed over, not copied: an InOut's host tensor becomes the device buffer
      // and a pure Out's host tensor (only the golden's starting point) is freed before the
      // kernel runs, so each output is held twice (result and golden), not three times.
      if (specs[k].direction == Direction::InOut) {
        args[k].tensor = std::move(host[k]);
        args[k].hand_over = true;
      } else {
        args[k].hand_over_out(host[k]);
      }
      host[k] = at::Tensor();
    }
  }
  sim::DispatchReport report;
  {
    py::gil_scoped_release release;
    sim::DispatchOptions options;
    options.recorder = recorder;
    report = sim::dispatch(session, args, options);
  }
  for (size_t k = 0; k < specs.size(); ++k)
    if (args[k].hand_over) host[k] = report.outputs[k];
  for (const auto& name : report.written_inputs)
    log.line("[RUN]   warning: kernel '" + kernel + "' wrote its In parameter '" + name +
             "'; on the device that write is lost (declare it pl.InOut to keep it)");
  if (persistent && !report.signal_left_set.empty())
    log.line("[RUN]   warning: kernel '" + kernel + "' ends its launch with a signal it waits on still set (" +
             report.signal_left_set +
             "); window buffers persist between launches (this benchmark's, and on hardware), so the next "
             "launch's pld.system.wait may be satisfied by this launch's notify: reset each signal once it is "
             "consumed (pld.system.notify(..., value=0, op=pld.NotifyOp.Set)), or wait for a per-launch count "
             "(a stepped scalar)");
  return std::move(report.unwritten);
}

// The DFX outputs RunConfig asks for that the simulator writes (the chip swimlane, the task
// graph, the argument dump, PMU counters, scope statistics); the level of
// enable_chip_swimlane is PyPTO's 0..4.
DfxRun dfx_request(const py::handle& config) {
  DfxRun dfx;
  dfx.swimlane_level = py::int_(py::getattr(config, "enable_chip_swimlane", py::int_(0)));
  dfx.scope_stats = py::bool_(py::getattr(config, "enable_scope_stats", py::bool_(false)));
  dfx.dep_gen = py::bool_(py::getattr(config, "enable_dep_gen", py::bool_(false)));
  dfx.dump_args = py::int_(py::getattr(config, "enable_dump_args", py::int_(0)));
  dfx.pmu = py::int_(py::getattr(config, "enable_pmu", py::int_(0)));
  return dfx;
}

// Where a save_data run writes: <work_dir>/data, or data_1, data_2, ... when an earlier run
// of the same build saved there (a second run of a cached compile in the process, a
// runtime_dir replay): never over another run's files. Made here, so that two runs at once
// never claim the same; a build directory that cannot take it is left to the save to report.
std::filesystem::path claim_data_dir(const std::filesystem::path& work_dir) {
  for (int n = 0;; ++n) {
    const std::filesystem::path dir = work_dir / (n == 0 ? std::string("data") : "data_" + std::to_string(n));
    std::error_code error;
    if (std::filesystem::create_directory(dir, error) || error) return dir;
  }
}

// enable_dump_args: 1 keeps the data of the tensors tasks were asked to dump, 2 of all,
// 3 none (the windows' metadata only).
sim::TaskRecorder::Payloads dump_payloads(int dump_args) {
  if (dump_args == 1) return sim::TaskRecorder::Payloads::Marked;
  return dump_args == 2 ? sim::TaskRecorder::Payloads::All : sim::TaskRecorder::Payloads::None;
}

bool any_window_dumped(const std::vector<sim::TaskRecord>& tasks) {
  for (const auto& t : tasks)
    for (const auto& w : t.windows)
      if (w.data.defined()) return true;
  return false;
}

// A session on the device, waiting for it without the GIL: another run's thread may hold
// the device and need the GIL to finish.
std::unique_ptr<sim::DispatchSession> open_session(const sim::Program& program, sim::Device& device) {
  py::gil_scoped_release release;
  return std::make_unique<sim::DispatchSession>(program, device);
}

// The kernel's name for messages on a replay: the function's, else the build directory's
// name without its _YYYYMMDD_HHMMSS suffix.
std::string kernel_name(const py::handle& fn, const std::filesystem::path& dir) {
  if (!fn.is_none() && py::hasattr(fn, "__name__")) return py::str(fn.attr("__name__"));
  std::string name = dir.filename().string();
  if (name.size() > 16 && name[name.size() - 16] == '_') name.resize(name.size() - 16);
  return name;
}

// A run that fails, raises or is interrupted after its build exists ends by naming its
// work_dir: the build and any saved data are there, for --runtime-dir / --golden-data and
// for a look (the result's error alone may not say where).
class WorkDirOnFailure {
 public:
  WorkDirOnFailure(const StageLog& log, const RunOutcome& outcome) : log_(log), outcome_(outcome) {}
  ~WorkDirOnFailure() {
    if (outcome_.passed || !outcome_.work_dir) return;
    try {
      log_.line("[RUN]   work_dir: " + *outcome_.work_dir);
    } catch (...) {  // unwinding already: the line is a courtesy, the error is what counts
    }
  }

 private:
  const StageLog& log_;
  const RunOutcome& outcome_;
};

}  // namespace

RunOutcome run_pipeline(const RunRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  RunRecord scratch;
  RunRecord& record = req.record ? *req.record : scratch;
  record = RunRecord();
  StageLog log(req.sink, &record.stages);
  RunOutcome outcome;
  const WorkDirOnFailure name_work_dir(log, outcome);
  auto finish = [&](bool passed, std::optional<std::string> error) {
    outcome.passed = passed;
    outcome.error = std::move(error);
    outcome.execution_time = seconds_since(start);
    record.passed = passed;
    record.validated = outcome.validated;
    record.error = outcome.error.value_or("");
    record.seconds = outcome.execution_time;
    record.work_dir = outcome.work_dir.value_or("");
    return outcome;
  };

  record.kernel = kernel_name(req.fn, req.runtime_dir.value_or(std::filesystem::path()));
  std::vector<NativeSpec> specs = read_specs(req.specs);
  const std::string asked_platform = py::str(req.config.attr("platform"));
  record.platform = asked_platform;
  const int device_id = py::int_(req.config.attr("device_id"));
  const std::string platform = dispatch_platform(asked_platform);
  if (platform != asked_platform)
    log.line("[RUN] simulate: platform '" + asked_platform + "' runs on the simulator '" + platform + "'");

  try {
    // Without the hardware a dispatch cannot happen: say so before compiling and running the
    // golden (a compile-only run is fine: it builds for the hardware).
    if (!req.compile_only) require_simulator(platform);
    if (req.golden_data) {
      std::error_code ec;
      if (!std::filesystem::is_directory(*req.golden_data, ec))
        throw RunFailure("golden_data does not exist: " + req.golden_data->string());
      load_cached_scalars(*req.golden_data, specs);
    }

    {
      const bool jit_kernel = py::str(py::type::of(req.fn).attr("__name__")).cast<std::string>() == "JITFunction";
      const bool swimlane = py::bool_(py::getattr(req.config, "enable_chip_swimlane", py::bool_(false)));
      check_stepped_scalars(specs, !req.runtime_dir, jit_kernel, swimlane);
    }

    CompiledKernel kernel;
    log.stage("compile", [&] {
      kernel = req.runtime_dir ? open_build(*req.runtime_dir, specs, kernel_name(req.fn, *req.runtime_dir), log)
                               : compile_kernel(req.fn, specs, req.config, log);
    });
    outcome.work_dir = kernel.work_dir.string();
    record.kernel = kernel.name;
    record.work_dir = *outcome.work_dir;
    check_compare_fn(req.compare_fn, specs, "kernel '" + kernel.name + "'");
    if (req.compile_only) {
      finish(true, std::nullopt);
      log.line("[RUN] PASS (" + seconds_text(outcome.execution_time) + "s)");
      return outcome;
    }
    const std::filesystem::path data_dir = req.save_data ? claim_data_dir(kernel.work_dir) : kernel.work_dir / "data";

    std::vector<at::Tensor> host(specs.size());
    log.stage("generate inputs", [&] {
      check_memory_budget(specs);
      if (req.golden_data) {
        check_snapshot_complete(*req.golden_data, specs);
        log.line("[RUN]   cache hit: " + (*req.golden_data / "in").string());
        load_inputs(*req.golden_data, specs, host);
        for (size_t k = 0; k < specs.size(); ++k)  // pure Out host buffers only receive results
          if (specs[k].is_tensor && !host[k].defined()) host[k] = at::zeros(specs[k].shape, at::TensorOptions().dtype(specs[k].dtype));
        return;
      }
      for (size_t k = 0; k < specs.size(); ++k)
        if (specs[k].is_tensor) host[k] = create_host_tensor(specs[k]);
      if (req.save_data) {
        save_inputs(data_dir, specs, host);
        log.line("[RUN]   saved: " + (data_dir / "in").string());
      }
    });

    const bool has_golden = req.golden_data || !req.golden_fn.is_none();
    std::map<std::string, at::Tensor> expected;
    if (has_golden)
      log.stage("compute golden", [&] {
        if (req.golden_data) {
          log.line("[RUN]   cache hit: " + (*req.golden_data / "out").string());
          expected = load_goldens(*req.golden_data, specs);
          return;
        }
        expected = compute_golden(req.golden_fn, specs, host, log);
        if (req.save_data) {
          save_goldens(data_dir, specs, expected);
          log.line("[RUN]   saved: " + (data_dir / "out").string());
        }
      });

    std::vector<std::string> knob_warnings;
    const BenchKnobs knobs = read_bench_knobs([&](const std::string& w) { knob_warnings.push_back(w); });
    const std::string skip_line = req.runtime_dir ? replay_skip_line(specs) : "";
    const bool benchmark = knobs.enabled && skip_line.empty();
    std::vector<at::Tensor> initial(specs.size());  // InOut state before the correctness dispatch
    if (benchmark)
      for (size_t k = 0; k < specs.size(); ++k)
        if (specs[k].is_tensor && specs[k].direction == Direction::InOut && specs[k].residency == Residency::None)
          initial[k] = lazy_copy(host[k]);

    // The devices stay this run's from the correctness dispatch to the end of the benchmark.
    std::shared_ptr<const sim::Program> program;
    std::shared_ptr<sim::Device> device;
    std::unique_ptr<sim::DispatchSession> session;
    DfxRun dfx = dfx_request(req.config);
    std::optional<sim::TaskRecorder> recorder;
    std::vector<std::optional<sim::ElementRuns>> unwritten(specs.size());
    log.stage("runtime", [&] {
      program = sim::load_program_cached(kernel.work_dir);
      check_residents(specs, program->devices);
      if (req.runtime_dir) warn_specialised_scalars(program->entry(), specs, kernel.work_dir, log);
      device = sim::simulated_device(device_id);
      session = open_session(*program, *device);
      if (dfx.any()) recorder.emplace(dfx.windows(), dump_payloads(dfx.dump_args));
      unwritten = run_on_device(*session, specs, host, kernel.name, benchmark, log, recorder ? &*recorder : nullptr);
    });
    // Written after the stage, so its time is the dispatch's alone.
    if (recorder) {
      dfx.kernel = kernel.name;
      dfx.source_file = program->source_file;
      dfx.platform = asked_platform;
      const std::vector<sim::TaskRecord> tasks = recorder->tasks();  // merged once, for both
      if (dfx.dump_args == 1 && !any_window_dumped(tasks))
        log.line("[RUN]   dfx: enable_dump_args=1 dumps the tensors marked with pl.dump_tag or dumps=, and no task "
                 "read or wrote one: nothing dumped (2 dumps every task's windows, 3 their metadata)");
      for (const auto& path : write_dfx_outputs(kernel.work_dir / "dfx_outputs", dfx, tasks, recorder->tensors(),
                                                recorder->submits(), recorder->aliases()))
        log.line("[RUN]   dfx: " + path.string());
      if (dfx.swimlane_level > 0 && html_report_requested()) keep_swimlane(record, tasks);
    }

    if (knobs.enabled && !skip_line.empty()) log.line(skip_line);
    if (benchmark)
      log.stage("benchmark", [&] {
        for (const auto& w : knob_warnings) log.line(w);
        if (!has_residents(specs)) {  // resident buffers and windows carry on; otherwise start afresh
          session.reset();
          session = open_session(*program, *device);
        }
        outcome.bench = run_benchmark(knobs, {kernel.name, platform}, specs, host, initial, *session, log);
      });
    if (outcome.bench) record.bench_us = outcome.bench->samples;
    session.reset();

    outcome.validated = has_golden;
    if (has_golden) {
      ValidationReport report;
      log.stage("validate", [&] {
        report = validate_outputs(specs, host, expected, req.compare_fn, req.rtol, req.atol,
                                  [&](size_t k) { return unwritten_note(specs[k], host[k], expected, *device, unwritten[k]); },
                                  log);
      });
      record.outputs = report.outputs;
      if (!report.passed && html_report_requested()) draw_failures(record, specs, host, expected, *device, unwritten);
      if (!report.passed) {
        if (!req.golden_data && draws_random_inputs(specs)) {
          const std::string seed = std::to_string(at::detail::getDefaultCPUGenerator().current_seed());
          log.line("[RUN]   inputs drawn from torch seed " + seed + ": run again with --seed " + seed +
                   " (or PYPTO_GOLDEN_SEED=" + seed + ") for the same inputs");
        }
        return finish(false, report.error);
      }
    }
    finish(true, std::nullopt);
    log.line("[RUN] PASS (" + seconds_text(outcome.execution_time) + "s" +
             (has_golden ? "" : ", validation skipped: no golden_fn or golden_data") + ")");
    return outcome;
  } catch (const RunFailure& e) {
    return finish(false, std::string(e.what()));
  }
}

}  // namespace pypto_golden
