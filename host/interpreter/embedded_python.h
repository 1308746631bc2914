// Runs a script as __main__ in an embedded CPython, the way `python3 SCRIPT ARGS...` would:
// same sys.argv, same traceback output, same exit status.
#pragma once

#include <string>
#include <vector>

namespace pypto_golden {

struct ScriptRun {
  std::string program_name;  // argv[0] of the host
  std::string script;
  std::vector<std::string> script_args;
  std::string pylib_dir;     // put ahead of everything else on sys.path
};

// Returns the process exit status: 0, the script's SystemExit code, 1 for an uncaught
// exception (traceback printed), 130 for Ctrl-C.
int run_script_as_main(const ScriptRun& run);

// Why `path` cannot be run as a Python script ("" when it can).
std::string script_problem(const std::string& path);

}  // namespace pypto_golden
