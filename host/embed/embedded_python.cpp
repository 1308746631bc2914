#include "embed/embedded_python.h"

#include "sim/interrupt.h"

#include <Python.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace pypto_golden {
namespace {

void check_status(PyStatus status) {
  if (PyStatus_Exception(status)) Py_ExitStatusException(status);
}

std::wstring widen(const std::string& s) {
  wchar_t* w = Py_DecodeLocale(s.c_str(), nullptr);
  std::wstring out = w ? w : L"";
  PyMem_RawFree(w);
  return out;
}

// sys.path = [pylib, script dir, ...]: our golden and bundled pypto win over other copies,
// and the script still imports its neighbours like under python3.
bool set_up_sys_path(const std::string& pylib_dir, const std::string& script_dir) {
  PyObject* path = PySys_GetObject("path");  // borrowed
  if (!path) return false;
  for (const std::string* d : {&script_dir, &pylib_dir}) {
    if (d->empty()) continue;
    PyObject* dir = PyUnicode_DecodeFSDefault(d->c_str());
    const bool ok = dir && PyList_Insert(path, 0, dir) == 0;
    Py_XDECREF(dir);
    if (!ok) return false;
  }
  return true;
}

// Which torch the script's `import torch` would load, found without importing it: a torch
// other than the linked one fails inside its own extension with undefined symbols.
const char* kFindTorch = R"PY(
import importlib.util, os, re, sys
_spec = importlib.util.find_spec("torch")
_dirs = list(_spec.submodule_search_locations or []) if _spec else []
found_dir = os.path.realpath(_dirs[0]) if _dirs else ""
found_version = ""
if found_dir:
    try:
        with open(os.path.join(found_dir, "version.py"), encoding="utf-8") as f:
            _m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", f.read(), re.M)
        found_version = _m.group(1) if _m else ""
    except OSError:
        pass
python = sys.executable
)PY";

std::string dict_str(PyObject* dict, const char* key) {
  PyObject* v = PyDict_GetItemString(dict, key);  // borrowed
  const char* s = v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : nullptr;
  return s ? s : "";
}

// "" when the interpreter imports the torch pypto-golden was linked against.
std::string torch_mismatch(const ScriptRun& run) {
  PyObject* ns = PyDict_New();
  PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
  PyObject* r = PyRun_String(kFindTorch, Py_file_input, ns, ns);
  if (!r) {
    PyErr_Clear();
    Py_DECREF(ns);
    return "";  // the script's own import reports whatever is wrong
  }
  Py_DECREF(r);
  std::string dir = dict_str(ns, "found_dir"), version = dict_str(ns, "found_version");
  std::string python = dict_str(ns, "python");
  Py_DECREF(ns);
  std::string built = "pypto-golden was built against torch " + run.torch_version + " (" + run.torch_dir +
                      ")";
  std::string fix = "; run it in the environment it was built with, or rebuild it against this "
                    "interpreter: cmake -B build -DPython3_EXECUTABLE=" + python;
  if (dir.empty()) return built + ", but its Python (" + python + ") cannot import torch" + fix;
  if (version != run.torch_version)
    return built + ", but its Python (" + python + ") imports torch " +
           (version.empty() ? std::string("of unknown version") : version) + " from " + dir +
           " (PYTHONPATH?)" + fix;
  return "";
}

// SIGTERM stops a run as Ctrl-C does (the stage says so, the work_dir is kept), with
// status 143: inside a dispatch through the simulator's flag, elsewhere as a
// KeyboardInterrupt (PyErr_SetInterrupt is async-signal-safe).
extern "C" void on_sigterm(int) {
  sim::note_terminated();
  if (!sim::interrupt_if_dispatching()) PyErr_SetInterrupt();
}

void install_sigterm_handler() {
  struct sigaction action {};
  action.sa_handler = on_sigterm;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

std::string script_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return "script not found: " + path;
  if (fs::is_directory(status)) return path + " is a directory, not a Python script";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read the script " + path;
  char buf[8192];
  in.read(buf, sizeof buf);
  std::streamsize n = in.gcount();
  for (std::streamsize k = 0; k < n; ++k)
    if (buf[k] == '\0') return path + " is not a Python script (it holds binary data)";
  return "";
}

namespace {

// Initializes the interpreter as the build's Python with `argv` as sys.argv and
// sys.path = [pylib, first_dir, ...] (no first_dir when empty). Returns 0, or the status
// to exit with (the interpreter finalized, the problem printed).
int start_interpreter(const ScriptRun& run, const std::vector<std::string>& args, const std::string& first_dir) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;  // the script's arguments are the script's, not the interpreter's
  check_status(PyConfig_SetBytesString(&config, &config.program_name, run.program_name.c_str()));
  if (!run.python_executable.empty())
    check_status(PyConfig_SetBytesString(&config, &config.executable, run.python_executable.c_str()));
  std::vector<std::wstring> wide;
  for (const auto& a : args) wide.push_back(widen(a));
  std::vector<wchar_t*> argv;
  for (auto& w : wide) argv.push_back(w.data());
  check_status(PyConfig_SetArgv(&config, static_cast<Py_ssize_t>(argv.size()), argv.data()));
  check_status(Py_InitializeFromConfig(&config));
  PyConfig_Clear(&config);

  if (!set_up_sys_path(run.pylib_dir, first_dir)) {
    PyErr_Print();
    Py_FinalizeEx();
    return 1;
  }
  std::string mismatch = torch_mismatch(run);
  if (!mismatch.empty()) {
    std::fprintf(stderr, "pypto-golden: %s\n", mismatch.c_str());
    Py_FinalizeEx();
    return 2;
  }
  return 0;
}

}  // namespace

int run_with_interpreter(const ScriptRun& run, const std::function<int()>& body) {
  if (int status = start_interpreter(run, {run.program_name}, ""); status != 0) return status;
  const int status = body();
  Py_FinalizeEx();
  return status;
}

int run_script_as_main(const ScriptRun& run) {
  std::vector<std::string> args = {run.script};
  args.insert(args.end(), run.script_args.begin(), run.script_args.end());
  namespace fs = std::filesystem;
  const std::string script_dir = fs::absolute(fs::path(run.script)).parent_path().lexically_normal().string();
  if (int status = start_interpreter(run, args, script_dir); status != 0) return status;

  install_sigterm_handler();

  // A seed applies before the script's first random call, wherever it imports golden.
  if (std::getenv("PYPTO_GOLDEN_SEED")) {
    PyObject* golden = PyImport_ImportModule("golden");
    if (!golden) {
      PyErr_Print();
      Py_FinalizeEx();
      return 1;
    }
    Py_DECREF(golden);
  }

  PyObject* main_module = PyImport_AddModule("__main__");  // borrowed
  PyObject* globals = PyModule_GetDict(main_module);        // borrowed
  PyObject* file = PyUnicode_DecodeFSDefault(run.script.c_str());
  PyDict_SetItemString(globals, "__file__", file);
  PyDict_SetItemString(globals, "__cached__", Py_None);
  Py_DECREF(file);

  int status = 0;
  FILE* fp = std::fopen(run.script.c_str(), "rb");
  if (!fp) {
    std::fprintf(stderr, "pypto-golden: cannot open %s\n", run.script.c_str());
    Py_FinalizeEx();
    return 2;
  }
  PyCompilerFlags flags = _PyCompilerFlags_INIT;
  PyObject* result = PyRun_FileExFlags(fp, run.script.c_str(), Py_file_input, globals, globals, 1, &flags);
  if (result) {
    Py_DECREF(result);
  } else if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
    PyErr_Print();
    status = sim::terminated() ? 143 : 130;  // as a shell reports SIGTERM / SIGINT
  } else {
    // Prints the traceback like python3; for SystemExit it exits with the script's code.
    PyErr_Print();
    status = 1;
  }
  if (Py_FinalizeEx() < 0 && status == 0) status = 120;
  return status;
}

}  // namespace pypto_golden
