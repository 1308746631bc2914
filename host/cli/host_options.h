// Command line of the pypto-golden executable. Host options come before the script;
// everything after the script belongs to the script.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pypto_golden {

struct HostOptions {
  bool help = false;
  bool version = false;
  std::optional<int> threads;  // --threads N  (= PYPTO_GOLDEN_NUM_THREADS)
  std::optional<std::string> seed;  // --seed N  (= PYPTO_GOLDEN_SEED), digits below 2**64
  // Applied to every golden.run call of the script, like the keywords of the same name.
  bool save_data = false;
  bool compile_only = false;
  std::optional<std::string> golden_data;
  std::optional<std::string> runtime_dir;
  bool bench = false;               // --bench[=ROUNDS]: PYPTO_BENCH=1 for this run
  std::optional<int> bench_rounds;  //   and PYPTO_BENCH_ROUNDS=ROUNDS
  bool simulate = false;            // --simulate: PYPTO_GOLDEN_SIMULATE=1 for this run
  std::optional<std::string> junit;  // --junit FILE: PYPTO_GOLDEN_JUNIT=FILE (made absolute)
  std::optional<std::string> report;  // --report DIR: PYPTO_GOLDEN_REPORT=DIR (made absolute)
  std::optional<std::string> ranks;   // --ranks=thread|process: PYPTO_SIM_RANKS
  std::optional<std::string> rank_hosts;  // --rank-hosts FILE: PYPTO_SIM_RANK_HOSTS (and process)
  std::string script;
  std::vector<std::string> script_args;
  // --worker: this process is a rank worker of a host process (no script).
  bool worker = false;
  std::optional<std::string> store;  // --store HOST:PORT (parsed by the worker)
  std::optional<int> rank;           // --rank R
  std::optional<int> world_size;     // --world-size N
};

struct ParsedCommandLine {
  HostOptions options;
  std::string error;  // non-empty: a usage error (exit status 2)
};

ParsedCommandLine parse_command_line(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace pypto_golden
