// pypto-golden: run a PyPTO kernel script with the native harness core.
#include "cli/host_options.h"
#include "cli/memory_guard.h"
#include "embed/embedded_python.h"
#include "ranks/rank_hosts.h"
#include "ranks/rank_worker.h"
#include "run/host_overrides.h"

#include <Python.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace fs = std::filesystem;
using namespace pypto_golden;

namespace {

bool holds_golden(const fs::path& dir) { return fs::exists(dir / "golden" / "__init__.py"); }

// pylib next to an installed executable, else the source tree this binary was built from.
std::string find_pylib(std::string& problem) {
  if (const char* env = std::getenv("PYPTO_GOLDEN_PYLIB")) {
    if (holds_golden(env)) return env;
    problem = std::string("PYPTO_GOLDEN_PYLIB=") + env + " does not contain the golden package (golden/__init__.py)";
    return "";
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / PYPTO_GOLDEN_PYTHON_INSTALL_DIR;
    if (holds_golden(installed)) return installed.lexically_normal().string();
  }
  if (holds_golden(PYPTO_GOLDEN_SOURCE_PYLIB)) return PYPTO_GOLDEN_SOURCE_PYLIB;
  problem = "cannot find the golden Python package (looked next to the executable and in " +
            std::string(PYPTO_GOLDEN_SOURCE_PYLIB) + "); set PYPTO_GOLDEN_PYLIB to the pylib directory";
  return "";
}

// The script's child Python processes (sys.executable running another kernel script, as
// pypto-lib's compile-in-a-subprocess flows do) import the same golden, pypto and
// _pypto_golden as the script: pylib, and the build tree's extension directory unless pylib is
// an installed site directory that holds the extension itself, go ahead of PYTHONPATH.
void export_child_pythonpath(const std::string& pylib) {
  std::string dirs = pylib;
  std::error_code ec;
  if (!fs::exists(fs::path(pylib) / "_pypto_golden_build.json", ec) &&
      fs::exists(fs::path(PYPTO_GOLDEN_BUILD_PYTHON_DIR) / "_pypto_golden_build.json", ec))
    dirs += std::string(":") + PYPTO_GOLDEN_BUILD_PYTHON_DIR;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) dirs += std::string(":") + old;
  setenv("PYTHONPATH", dirs.c_str(), 1);
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "pypto-golden: %s\n%s", message.c_str(), usage_text().c_str());
  return 2;
}

// --worker: no script; the worker names its own problems. Its interpreter only makes the
// Gloo group (through torch.distributed), so pylib is not on its path.
int run_worker(const HostOptions& o, const char* program_name) {
  ranks::WorkerOptions w;
  if (o.store) {
    try {
      w.store = ranks::parse_store_address(*o.store, "--store");
    } catch (const std::invalid_argument& e) {
      return usage_error(e.what());
    }
  }
  w.rank = o.rank;
  w.world_size = o.world_size;
  // A worker on another machine has no host watching its memory there.
  static_assert(ranks::kWorkerOutOfMemory == kOutOfMemoryStatus);
  try {
    start_memory_guard("pypto-golden --worker");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "pypto-golden --worker: %s\n", e.what());
    return ranks::kWorkerRefused;
  }
  ScriptRun run;
  run.program_name = program_name;
  run.python_executable = PYPTO_GOLDEN_PYTHON_EXECUTABLE;
  run.torch_version = PYPTO_GOLDEN_TORCH_VERSION;
  run.torch_dir = PYPTO_GOLDEN_TORCH_DIR;
  return run_with_interpreter(run, [&] { return ranks::run_rank_worker(w); });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  ParsedCommandLine cl = parse_command_line(args);
  if (cl.options.help) {
    std::cout << usage_text();
    return 0;
  }
  if (cl.options.version) {
    std::cout << "pypto-golden " << PYPTO_GOLDEN_VERSION << " (Python " << PY_VERSION << ", torch "
              << PYPTO_GOLDEN_TORCH_VERSION << ")\n";
    return 0;
  }
  if (!cl.error.empty()) return usage_error(cl.error);
  if (cl.options.worker) return run_worker(cl.options, argv[0]);

  std::string problem = script_problem(cl.options.script);
  if (!problem.empty()) {
    std::fprintf(stderr, "pypto-golden: %s\n", problem.c_str());
    return 2;
  }
  HostOverrides& overrides = host_overrides();
  overrides.save_data = cl.options.save_data;
  overrides.compile_only = cl.options.compile_only;
  // Relative to where the user typed the command, whatever the script does with its cwd.
  if (cl.options.golden_data) overrides.golden_data = fs::absolute(*cl.options.golden_data).lexically_normal().string();
  if (cl.options.runtime_dir) overrides.runtime_dir = fs::absolute(*cl.options.runtime_dir).lexically_normal().string();
  if (cl.options.junit)
    setenv("PYPTO_GOLDEN_JUNIT", fs::absolute(*cl.options.junit).lexically_normal().string().c_str(), 1);
  if (cl.options.report)
    setenv("PYPTO_GOLDEN_REPORT", fs::absolute(*cl.options.report).lexically_normal().string().c_str(), 1);
  if (cl.options.bench) setenv("PYPTO_BENCH", "1", 1);
  if (cl.options.simulate) setenv("PYPTO_GOLDEN_SIMULATE", "1", 1);
  if (cl.options.ranks) setenv("PYPTO_SIM_RANKS", cl.options.ranks->c_str(), 1);
  if (cl.options.rank_hosts) {
    // Read now, so that a bad file stops the run before the script, not at its first dispatch.
    const std::string hosts = fs::absolute(*cl.options.rank_hosts).lexically_normal().string();
    try {
      ranks::read_rank_hosts(*cl.options.rank_hosts);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "pypto-golden: --rank-hosts: %s\n", e.what());
      return 2;
    }
    setenv("PYPTO_SIM_RANK_HOSTS", hosts.c_str(), 1);
    setenv("PYPTO_SIM_RANKS", "process", 1);
  }
  if (cl.options.bench_rounds) setenv("PYPTO_BENCH_ROUNDS", std::to_string(*cl.options.bench_rounds).c_str(), 1);
  if (cl.options.seed) setenv("PYPTO_GOLDEN_SEED", cl.options.seed->c_str(), 1);
  if (cl.options.threads) setenv("PYPTO_GOLDEN_NUM_THREADS", std::to_string(*cl.options.threads).c_str(), 1);

  ScriptRun run;
  run.pylib_dir = find_pylib(problem);
  if (run.pylib_dir.empty()) {
    std::fprintf(stderr, "pypto-golden: %s\n", problem.c_str());
    return 2;
  }
  export_child_pythonpath(run.pylib_dir);
  try {
    start_memory_guard();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "pypto-golden: %s\n", e.what());
    return 2;
  }
  run.program_name = argv[0];
  run.python_executable = PYPTO_GOLDEN_PYTHON_EXECUTABLE;
  run.torch_version = PYPTO_GOLDEN_TORCH_VERSION;
  run.torch_dir = PYPTO_GOLDEN_TORCH_DIR;
  run.script = cl.options.script;
  run.script_args = cl.options.script_args;
  return run_script_as_main(run);
}
