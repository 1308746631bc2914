// Runs a script as __main__ in an embedded CPython, the way `python3 SCRIPT ARGS...` would:
// same sys.argv, same traceback output, same exit status.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pypto_golden {

struct ScriptRun {
  std::string program_name;  // argv[0] of the host
  std::string script;
  std::vector<std::string> script_args;
  std::string pylib_dir;     // put ahead of everything else on sys.path
  // The interpreter pypto-golden was built against: CPython starts as that executable
  // would (a venv's pyvenv.cfg is found from it), so its site-packages are the script's.
  std::string python_executable;
  // The torch that was linked in; the script's interpreter must import the same one.
  std::string torch_version;
  std::string torch_dir;
};

// Returns the process exit status: 0, the script's SystemExit code, 1 for an uncaught
// exception (traceback printed), 130 for Ctrl-C.
int run_script_as_main(const ScriptRun& run);

// Starts the interpreter as run_script_as_main does (the build's Python and its
// site-packages, pylib first on sys.path), without a script, runs `body` with the GIL held
// and finalizes. Returns body's status, or 2 (with one stderr line) when this interpreter
// would import another torch than the linked one. `run.script` is unused.
int run_with_interpreter(const ScriptRun& run, const std::function<int()>& body);

// Why `path` cannot be run as a Python script ("" when it can).
std::string script_problem(const std::string& path);

}  // namespace pypto_golden
