#include "define_module.h"

#include "artifact/compiled_meta.h"
#include "ranks/rank_processes.h"
#include "ranks/remote_launches.h"
#include "ranks/shared_host_memory.h"
#include "sim/comm/remote_ranks.h"
#include "report/html_report.h"
#include "report/junit_report.h"
#include "run/host_overrides.h"
#include "run/pipeline.h"
#include "run/platforms.h"
#include "run/run_errors.h"
#include "run/tensor_files.h"
#include "run/validation_stage.h"
#include "sim/device_registry.h"
#include "sim/dispatch.h"
#include "sim/kernel_error.h"
#include "sim/ops/op_table.h"
#include "sim/program_loader.h"
#include "sim/thread_pool.h"
#include "sim/vector_math_warmup.h"
#include "snapshot/tensor_file.h"
#include "validate/allclose.h"

#include <ATen/Parallel.h>
#include <omp.h>
#include <torch/csrc/autograd/python_variable.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {
namespace {

// Lines go through Python's sys.stdout so they interleave correctly with the script's prints.
void write_line(const std::string& line) {
  py::gil_scoped_acquire gil;
  py::object out = py::module_::import("sys").attr("stdout");
  out.attr("write")(line + "\n");
  out.attr("flush")();
}

std::optional<std::filesystem::path> optional_path(const py::handle& p) {
  if (p.is_none()) return std::nullopt;
  return std::filesystem::path(py::str(py::module_::import("os").attr("fspath")(p)).cast<std::string>());
}

// The record of this thread's current (or last) golden.run, for the reports written when it
// ends (report_run).
RunRecord& thread_run_record() {
  thread_local RunRecord record;
  return record;
}

// golden.run has ended: with its result (error_type empty) or with the exception the script
// gets (error_type its class name, error its message). Writes the reports asked for.
void report_run(const std::string& script, const std::string& kernel, bool passed, const std::string& error,
                const std::string& error_type, double seconds) {
  RunRecord& r = thread_run_record();
  if (r.kernel.empty()) r.kernel = kernel;
  if (!error_type.empty()) {
    r.passed = false;
    r.error = error;
    r.error_type = error_type;
    r.seconds = seconds;
  } else if (r.stages.empty()) {  // ended before the pipeline (an early refusal of golden.run)
    r.passed = passed;
    r.error = error;
    r.seconds = seconds;
  }
  const char* junit = std::getenv("PYPTO_GOLDEN_JUNIT");
  if (junit && *junit) {
    py::gil_scoped_release release;
    junit_append(std::filesystem::absolute(junit), script, r);
  }
  const char* html = std::getenv("PYPTO_GOLDEN_REPORT");
  if (html && *html) {
    py::gil_scoped_release release;
    html_report_append(std::filesystem::absolute(html), script, r);
  }
}

py::tuple run(py::object fn, py::object specs, py::object golden_fn, py::object config, double rtol,
              double atol, py::object compare_fn, bool compile_only, bool save_data, py::object runtime_dir,
              py::object golden_data) {
  RunRequest req;
  req.fn = std::move(fn);
  req.specs = std::move(specs);
  req.golden_fn = std::move(golden_fn);
  req.config = std::move(config);
  req.compare_fn = std::move(compare_fn);
  req.rtol = rtol;
  req.atol = atol;
  req.compile_only = compile_only;
  req.save_data = save_data;
  req.runtime_dir = optional_path(runtime_dir);
  req.golden_data = optional_path(golden_data);
  req.sink = write_line;
  req.record = &thread_run_record();
  RunOutcome o = run_pipeline(req);
  py::object bench = o.bench ? py::object(bench_stats_dict(*o.bench)) : py::none();
  return py::make_tuple(o.passed, o.error ? py::cast(*o.error) : py::none(), o.execution_time,
                        o.work_dir ? py::cast(*o.work_dir) : py::none(), bench, o.validated);
}

// Whether the arguments are of the parameters' kinds, one letter each ('t' a tensor, 's' a
// number: bool, int or float; anything else is not checked). The Python caller builds the
// message of a mismatch; checking here first keeps that loop off every dispatch.
bool args_match(const py::tuple& args, const std::string& kinds) {
  if (args.size() != kinds.size()) return false;
  for (size_t k = 0; k < kinds.size(); ++k) {
    PyObject* a = args[k].ptr();
    if (kinds[k] == 't' && !THPVariable_Check(a)) return false;
    if (kinds[k] == 's' && !PyBool_Check(a) && !PyLong_Check(a) && !PyFloat_Check(a)) return false;
  }
  return true;
}

// Dispatches a build directly (CompiledProgram.__call__): tensors in place, numbers as scalars.
// With `kinds` (see args_match), arguments of other kinds dispatch nothing and return false.
bool simulate(const std::string& work_dir, const py::tuple& args, const std::string& platform, int device_id,
              const std::optional<std::string>& kinds) {
  if (kinds && !args_match(args, *kinds)) return false;
  require_simulator(dispatch_platform(platform));
  auto program = sim::load_program_cached(work_dir);
  std::vector<sim::HostArg> host(args.size());
  for (size_t k = 0; k < args.size(); ++k) {
    py::handle a = args[k];
    if (THPVariable_Check(a.ptr())) {
      host[k].tensor = a.cast<at::Tensor>();
      if (!host[k].tensor.is_contiguous())
        throw py::value_error("argument " + std::to_string(k) + " must be a contiguous tensor");
      host[k].in_place = true;  // an Out / InOut receives the result: the kernel may work in it
    } else {
      host[k].is_tensor = false;
      if (PyBool_Check(a.ptr())) host[k].scalar = c10::Scalar(a.cast<bool>());
      else if (PyLong_Check(a.ptr())) host[k].scalar = c10::Scalar(a.cast<int64_t>());
      else host[k].scalar = c10::Scalar(a.cast<double>());
    }
  }
  sim::DispatchReport report;
  {
    py::gil_scoped_release release;
    report = sim::dispatch(*program, host, *sim::simulated_device(device_id));
  }
  for (const auto& name : report.written_inputs) {
    std::string msg = "kernel '" + program->entry().name + "' wrote its In parameter '" + name +
                      "'; on the device that write is lost (declare it pl.InOut to keep it)";
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw py::error_already_set();
  }
  return true;
}

py::tuple allclose(const std::string& name, const at::Tensor& actual, const at::Tensor& expected, double rtol,
                   double atol) {
  GateResult r;
  {
    py::gil_scoped_release release;
    r = allclose_gate(name, actual, expected, rtol, atol);
  }
  return py::make_tuple(r.passed, r.detail);
}

// golden.validate_golden: the validate stage over given dicts, as the public harness's
// function of that name; a mismatch raises AssertionError with the run's report.
void validate_golden(const py::dict& outputs, const py::dict& golden, double rtol, double atol,
                     const py::object& compare_fn, const py::object& inputs) {
  std::vector<NativeSpec> specs;
  std::vector<at::Tensor> actual;
  std::map<std::string, at::Tensor> expected;
  auto tensor_of = [](const py::handle& v, const std::string& what) {
    if (!THPVariable_Check(v.ptr()))
      throw py::type_error(what + " must be a torch.Tensor, got " + std::string(py::str(py::type::of(v).attr("__name__"))));
    return v.cast<at::Tensor>();
  };
  for (const auto& item : outputs) {
    NativeSpec s;
    s.name = py::str(item.first);
    s.direction = Direction::Out;
    specs.push_back(s);
    actual.push_back(tensor_of(item.second, "outputs['" + s.name + "']"));
    expected[s.name] = tensor_of(golden[item.first], "golden['" + s.name + "']");  // a missing name is KeyError
  }
  if (!inputs.is_none())
    for (const auto& item : py::reinterpret_borrow<py::dict>(inputs)) {
      NativeSpec s;
      s.name = py::str(item.first);
      s.is_tensor = THPVariable_Check(item.second.ptr());
      if (!s.is_tensor) s.value = py::module_::import("torch").attr("as_tensor")(item.second).cast<at::Tensor>();
      specs.push_back(s);
      actual.push_back(s.is_tensor ? item.second.cast<at::Tensor>() : at::Tensor());
    }
  check_compare_fn(compare_fn, specs, "this validate_golden call");
  const ValidationReport report = validate_outputs(specs, actual, expected, compare_fn, rtol, atol, {}, StageLog(write_line));
  if (!report.passed) {
    PyErr_SetString(PyExc_AssertionError, report.error.c_str());
    throw py::error_already_set();
  }
}

// torch.set_num_threads(n) also rebuilds torch's global pthreadpool (used only by its mobile
// and quantized kernels) with n threads that busy-wait on start-up: ~200 ms of stolen CPU
// on a 2-core machine at 16 threads. The golden's ops run on OpenMP in this thread, so
// setting OpenMP's count here gives them the same n threads without that cost.
void set_intraop_threads(int threads) {
  if (threads < 1) throw py::value_error("threads must be >= 1");
  at::internal::lazy_init_num_threads();  // else ATen's first parallel op resets the count
  omp_set_num_threads(threads);
}

// The simulator's op table as data, so that a test can hold the frontend's table
// (pylib/pypto/language/op_table.py) against it.
py::list op_table() {
  py::list ops;
  for (const auto& def : sim::op_table().all()) {
    py::dict op;
    op["name"] = def.name;
    op["min_args"] = def.min_args;
    op["max_args"] = def.max_args;
    op["keywords"] = def.keywords;
    ops.append(op);
  }
  return ops;
}

}  // namespace

void define_module(py::module_& m) {
  m.doc() = "pypto-golden native core";
  py::module_::import("torch");  // the tensor casters need torch's Python types
  // Before the script's golden can run torch's exp on its OpenMP team (sim/vector_math_warmup.h).
  sim::warm_up_vector_math();
  m.def("_vector_math_warmed_up", &sim::vector_math_warmed_up,
        "whether MKL's vector math has made its first calls on one thread (tests)");

  // With ranks in worker processes, the script's large tensors (made after this import) go
  // where workers on this machine can map them. A bad setting is named at the first L3
  // dispatch, where the run can fail with it.
  try {
    if (sim::ranks_in_processes() && ranks::share_host_memory_wanted()) ranks::share_large_host_tensors();
  } catch (const std::invalid_argument&) {
  }

  // Start device 0's workers now, before golden sets torch's thread count: a thread that
  // first touches ATen after torch.set_num_threads(N) rebuilds torch's global thread pools
  // (hundreds of ms of spinning threads on a small machine). A bad PYPTO_SIM_* value is
  // reported at dispatch instead.
  try {
    sim::simulated_device(0);
  } catch (const std::exception&) {
  }

  auto& artifact_error = py::register_exception<ArtifactError>(m, "ArtifactError", PyExc_RuntimeError);
  py::register_exception<SpecError>(m, "SpecError", PyExc_ValueError);
  py::register_exception<sim::ProgramError>(m, "ProgramError", artifact_error.ptr());
  py::register_exception<sim::SimError>(m, "KernelError", PyExc_RuntimeError);
  py::register_exception<sim::ArgumentError>(m, "ArgumentError", PyExc_ValueError);
  py::register_exception<DeviceUnavailableError>(m, "DeviceUnavailableError", PyExc_RuntimeError);
  py::register_exception<GoldenError>(m, "GoldenError", PyExc_RuntimeError);
  py::register_exception<TensorFileError>(m, "TensorFileError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StageInterrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const sim::Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });

  m.def("run", &run, py::arg("fn"), py::arg("specs"), py::arg("golden_fn"), py::arg("config"), py::arg("rtol"),
        py::arg("atol"), py::arg("compare_fn"), py::arg("compile_only"), py::arg("save_data"),
        py::arg("runtime_dir"), py::arg("golden_data"),
        "Runs the harness pipeline; returns (passed, error, execution_time, work_dir, bench, validated).");
  py::register_exception<ReportFileError>(m, "ReportError", PyExc_RuntimeError);
  m.def("reset_run_record", [] { thread_run_record() = RunRecord(); },
        "Starts this thread's record of a golden.run (the reports of report_run).");
  m.def("report_run", &report_run, py::arg("script"), py::arg("kernel"), py::arg("passed"), py::arg("error"),
        py::arg("error_type"), py::arg("seconds"),
        "Ends this thread's golden.run: writes the reports asked for (PYPTO_GOLDEN_JUNIT).");
  m.def("simulate", &simulate, py::arg("work_dir"), py::arg("args"), py::arg("platform") = "a2a3sim",
        py::arg("device_id") = 0, py::arg("kinds") = py::none(),
        "Dispatches a simulator build in place; False (nothing dispatched) when `kinds` is given and an "
        "argument is not of its parameter's kind ('t' tensor, 's' number).");
  m.def("allclose", &allclose, py::arg("name"), py::arg("actual"), py::arg("expected"), py::arg("rtol"),
        py::arg("atol"), "The default gate: (passed, report).");
  m.def("validate_golden", &validate_golden, py::arg("outputs"), py::arg("golden"), py::arg("rtol"), py::arg("atol"),
        py::arg("compare_fn"), py::arg("inputs"),
        "Validates outputs against golden tensors; raises AssertionError with the report on a mismatch.");
  m.def("set_intraop_threads", &set_intraop_threads, py::arg("threads"),
        "Sets torch's intra-op (OpenMP) thread count for this thread without rebuilding torch's pthreadpool.");
  m.def("release_idle_omp_team", &sim::release_idle_omp_team,
        "Releases this thread's OpenMP team when it has no more threads than cores, as a run does between "
        "its golden and its first dispatch (its threads would spin on beside the device's workers).");
  m.def("save_tensor", [](const std::string& path, const at::Tensor& t) {
    py::gil_scoped_release release;
    save_pt_file(path, t);
  }, py::arg("path"), py::arg("tensor"), "Writes one tensor to a .pt file atomically (torch.save's format).");
  m.def("load_tensor", [](const std::string& path) {
    at::Tensor t;
    {
      py::gil_scoped_release release;
      t = load_pt_file(path);
    }
    return t;
  }, py::arg("path"), "Reads a .pt file holding one tensor.");
  m.def("host_overrides", [] {
    const HostOverrides& o = host_overrides();
    py::dict d;
    if (o.save_data) d["save_data"] = true;
    if (o.compile_only) d["compile_only"] = true;
    if (o.golden_data) d["golden_data"] = *o.golden_data;
    if (o.runtime_dir) d["runtime_dir"] = *o.runtime_dir;
    return d;
  }, "Options from the pypto-golden command line that apply to every run() of the script.");
  // An L3 dispatch with PYPTO_SIM_RANKS=process starts its rank workers through this.
  sim::set_remote_ranks_maker(&ranks::start_remote_ranks);
  m.def("_rank_link_check", [](int world_size, int64_t nbytes, const std::string& listen) {
    auto ranks = listen.empty() ? ranks::RankProcesses::start_local(world_size)
                                : ranks::RankProcesses::start_remote(world_size,
                                                                     ranks::parse_store_address(listen, "listen"));
    return ranks->echo(nbytes);
  }, py::arg("world_size"), py::arg("nbytes"), py::arg("listen") = "",
        "Starts world_size rank worker processes on this machine (or, with listen='HOST:PORT', serves the rank "
        "store there and waits for workers started elsewhere), forms the Gloo group with them, sends nbytes to each "
        "and back, and stops them; returns each round trip's microseconds (the tests' and benchmarks' check of the "
        "rank links).");
  m.def("op_table", &op_table,
        "The simulator's runtime ops, in registration order: [{name, min_args, max_args, keywords}], the "
        "positional argument counts it accepts and its keyword names.");
  define_validation(m);
  define_bench(m);
  m.attr("__version__") = PYPTO_GOLDEN_VERSION;
}

}  // namespace pypto_golden
