#include "cli/host_options.h"

#include <algorithm>
#include <climits>
#include <utility>
#include <cstdlib>

namespace pypto_golden {
namespace {

constexpr int kMaxThreads = 65536;  // as PYPTO_GOLDEN_NUM_THREADS (pylib/golden/threads.py)

// A positive decimal integer; one past INT_MAX comes back as INT_MAX, so a caller's own
// bound names the value rather than calling it not a number.
bool parse_positive(const std::string& text, int& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  const size_t lead = std::min(text.find_first_not_of('0'), text.size());
  if (text.size() - lead > 10) {
    out = INT_MAX;
    return true;
  }
  const long long v = std::atoll(text.c_str());
  out = v > INT_MAX ? INT_MAX : static_cast<int>(v);
  return out >= 1;
}

// A non-negative decimal integer below 10**6 (a rank).
bool parse_rank(const std::string& text, int& out) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::atoi(text.c_str());
  return true;
}

// A torch seed: decimal digits, 0 .. 2**64 - 1.
bool parse_seed(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  return text.size() < 20 || text <= "18446744073709551615";
}

// The value of `--name VALUE` or `--name=VALUE` at args[k] (advancing k past it); false
// when the option is not `name`.
bool option_value(const std::vector<std::string>& args, size_t& k, const std::string& name, std::string& value,
                  bool& missing) {
  const std::string& a = args[k];
  missing = false;
  if (a == name) {
    if (k + 1 >= args.size()) missing = true;
    else value = args[++k];
    return true;
  }
  if (a.rfind(name + "=", 0) != 0) return false;
  value = a.substr(name.size() + 1);
  return true;
}

// A worker runs no script and a script run takes no worker options; "no script given"
// is the error of neither a worker nor a run with a script.
ParsedCommandLine& check_worker_options(ParsedCommandLine& out) {
  const HostOptions& o = out.options;
  if (o.worker) {
    if (!o.script.empty())
      out.error = "--worker takes no script (a worker runs what its host process sends it), got '" + o.script + "'";
    return out;
  }
  if (o.rank_hosts && o.ranks == std::string("thread")) {
    out.error = "--rank-hosts starts the ranks in worker processes; it does not go with --ranks=thread";
    return out;
  }
  const char* stray = o.store ? "--store" : o.rank ? "--rank" : o.world_size ? "--world-size" : nullptr;
  if (stray) out.error = std::string(stray) + " is an option of --worker";
  else if (o.script.empty()) out.error = "no script given";
  return out;
}

}  // namespace

std::string usage_text() {
  return "usage: pypto-golden [--help] [--version] [--threads N] [--seed N] [--save-data]\n"
         "                    [--golden-data DIR] [--runtime-dir DIR] [--compile-only]\n"
         "                    [--bench[=ROUNDS]] [--simulate] [--junit FILE] [--report DIR]\n"
         "                    [--ranks=thread|process] [--rank-hosts FILE]\n"
         "                    SCRIPT [SCRIPT ARGS...]\n"
         "       pypto-golden --worker [--store HOST:PORT] [--rank R] [--world-size N]\n"
         "\n"
         "Runs a PyPTO kernel script (a @pl.jit kernel, its specs and golden, and a __main__\n"
         "that calls golden.run) in an embedded Python, with the native harness core.\n"
         "\n"
         "host options (before SCRIPT; everything after SCRIPT goes to the script):\n"
         "  -h, --help      show this help and exit\n"
         "  --version       show the version and exit\n"
         "  --threads N     torch CPU threads for the golden (sets PYPTO_GOLDEN_NUM_THREADS)\n"
         "  --seed N        seed torch's generator and Python's random before the script\n"
         "                  (sets PYPTO_GOLDEN_SEED): the same random inputs every run\n"
         "  --save-data     every run() saves inputs and goldens under <work_dir>/data\n"
         "  --golden-data DIR\n"
         "                  every run() replays inputs and goldens from DIR/in and DIR/out\n"
         "  --runtime-dir DIR\n"
         "                  every run() dispatches the existing build DIR instead of compiling\n"
         "  --compile-only  every run() stops after compile\n"
         "  --bench[=ROUNDS]\n"
         "                  benchmark mode for this run (PYPTO_BENCH=1, PYPTO_BENCH_ROUNDS=ROUNDS)\n"
         "  --simulate      run -p a2a3 / -p a5 on their simulators, a2a3sim / a5sim\n"
         "                  (sets PYPTO_GOLDEN_SIMULATE=1)\n"
         "  --junit FILE    add every run() to FILE as JUnit XML, a testsuite for the script\n"
         "                  (sets PYPTO_GOLDEN_JUNIT)\n"
         "  --report DIR    write DIR/report.html: every run() with its stages, verdicts and\n"
         "                  pictures of the failing outputs (sets PYPTO_GOLDEN_REPORT)\n"
         "  --ranks=process run each rank of an L3 program in a worker process of its own\n"
         "                  (sets PYPTO_SIM_RANKS; 'thread', the default, keeps them in this one)\n"
         "  --rank-hosts FILE\n"
         "                  start those workers on the machines of FILE, one a line:\n"
         "                  NAME [slots=N] [bin=PATH], through ssh (PYPTO_SIM_RANK_LAUNCHER)\n"
         "                  for a machine other than this one (sets PYPTO_SIM_RANK_HOSTS)\n"
         "\n"
         "rank worker (the simulated device of one rank of an L3 program, for a host process):\n"
         "  --worker        serve the host's rank store instead of running a script\n"
         "  --store HOST:PORT\n"
         "                  the host's rank store (default: MASTER_ADDR and MASTER_PORT)\n"
         "  --rank R        this worker's rank, 0 .. N-1 (default: RANK)\n"
         "  --world-size N  the ranks of the host's program (default: WORLD_SIZE)\n"
         "\n"
         "example: pypto-golden samples/hello_world.py -p a2a3sim -d 0\n";
}

ParsedCommandLine parse_command_line(const std::vector<std::string>& args) {
  ParsedCommandLine out;
  HostOptions& o = out.options;
  for (size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (a == "-h" || a == "--help") {
      o.help = true;
      return out;
    }
    if (a == "--version") {
      o.version = true;
      return out;
    }
    std::string value;
    bool missing = false;
    if (option_value(args, k, "--threads", value, missing)) {
      int n = 0;
      if (missing) {
        out.error = "--threads needs a value (a positive integer)";
        return out;
      }
      if (!parse_positive(value, n)) {
        out.error = "--threads must be a positive integer, got '" + value + "'";
        return out;
      }
      if (n > kMaxThreads) {
        out.error = "--threads must be at most " + std::to_string(kMaxThreads) + ", got '" + value + "'";
        return out;
      }
      o.threads = n;
      continue;
    }
    if (option_value(args, k, "--seed", value, missing)) {
      if (missing) {
        out.error = "--seed needs a value (an integer from 0 to 2**64 - 1)";
        return out;
      }
      if (!parse_seed(value)) {
        out.error = "--seed must be an integer from 0 to 2**64 - 1, got '" + value + "'";
        return out;
      }
      o.seed = value;
      continue;
    }
    if (a == "--bench" || a.rfind("--bench=", 0) == 0) {
      o.bench = true;
      if (a.size() > 7) {
        int n = 0;
        if (!parse_positive(a.substr(8), n)) {
          out.error = "--bench=ROUNDS needs a positive integer, got '" + a.substr(8) + "'";
          return out;
        }
        o.bench_rounds = n;
      }
      continue;
    }
    if (option_value(args, k, "--ranks", value, missing)) {
      if (missing || (value != "thread" && value != "process")) {
        out.error = "--ranks must be 'thread' or 'process'" + (missing ? std::string() : ", got '" + value + "'");
        return out;
      }
      o.ranks = value;
      continue;
    }
    if (option_value(args, k, "--rank-hosts", value, missing)) {
      if (missing || value.empty()) {
        out.error = "--rank-hosts needs a file (one machine a line: NAME [slots=N] [bin=PATH])";
        return out;
      }
      o.rank_hosts = value;
      continue;
    }
    if (a == "--worker") {
      o.worker = true;
      continue;
    }
    if (option_value(args, k, "--store", value, missing)) {
      if (missing || value.empty()) {
        out.error = "--store needs HOST:PORT";
        return out;
      }
      o.store = value;
      continue;
    }
    bool took_count = false;
    for (const auto& [name, field] : {std::pair<const char*, std::optional<int>*>{"--rank", &o.rank},
                                      std::pair<const char*, std::optional<int>*>{"--world-size", &o.world_size}}) {
      if (!option_value(args, k, name, value, missing)) continue;
      int n = 0;
      if (missing || !parse_rank(value, n) || (field == &o.world_size && n < 1)) {
        out.error = std::string(name) + (field == &o.rank ? " needs a rank (an integer from 0)" :
                                                            " needs a positive integer") +
                    (missing ? "" : ", got '" + value + "'");
        return out;
      }
      *field = n;
      took_count = true;
      break;
    }
    if (took_count) continue;
    if (a == "--simulate") {
      o.simulate = true;
      continue;
    }
    if (a == "--save-data" || a == "--compile-only") {
      (a == "--save-data" ? o.save_data : o.compile_only) = true;
      continue;
    }
    // The options that take a path: each its own field, each refused without its path.
    const struct {
      const char* name;
      const char* what;
      std::optional<std::string>* field;
    } paths[] = {{"--junit", "a file", &o.junit},
                 {"--report", "a directory", &o.report},
                 {"--golden-data", "a directory", &o.golden_data},
                 {"--runtime-dir", "a directory", &o.runtime_dir}};
    bool took_path = false;
    for (const auto& p : paths) {
      if (!option_value(args, k, p.name, value, missing)) continue;
      if (missing || value.empty()) {
        out.error = std::string(p.name) + " needs " + p.what;
        return out;
      }
      *p.field = value;
      took_path = true;
      break;
    }
    if (took_path) continue;
    if (a == "--") {
      if (k + 1 >= args.size()) break;
      o.script = args[k + 1];
      o.script_args.assign(args.begin() + static_cast<long>(k) + 2, args.end());
      return check_worker_options(out);
    }
    if (!a.empty() && a[0] == '-') {
      out.error = "unknown host option '" + a + "' (host options go before the script; see --help)";
      return out;
    }
    o.script = a;
    o.script_args.assign(args.begin() + static_cast<long>(k) + 1, args.end());
    return check_worker_options(out);
  }
  return check_worker_options(out);
}

}  // namespace pypto_golden
