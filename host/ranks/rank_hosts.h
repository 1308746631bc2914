// The machines a host process starts its rank workers on (--rank-hosts FILE, or
// PYPTO_SIM_RANK_HOSTS): one machine a line, `NAME [slots=N] [bin=PATH]`, `#` comments.
// Ranks go to the machines in the file's order, `slots` (default 1) to each; a machine that
// is this one is started as a child, any other through the launcher (PYPTO_SIM_RANK_LAUNCHER,
// default `ssh -o BatchMode=yes {host}`), whose command runs `bin` (default: this host's
// own pypto-golden path) as `--worker --store ADDRESS --rank R --world-size N`.
#pragma once

#include "ranks/local_workers.h"
#include "ranks/store_address.h"

#include <optional>
#include <string>
#include <vector>

namespace pypto_golden::ranks {

struct RankHost {
  std::string name;
  int slots = 1;
  std::string bin;  // "" for the host's own executable's path
  int line = 0;
};

struct RankHosts {
  std::string file;
  std::vector<RankHost> hosts;

  int slots() const;
  // Every machine is this one: the store and the group stay on loopback.
  bool this_machine_only() const;
};

// The file's machines. std::invalid_argument "FILE, line N: ..." (or "FILE: ...") for an
// unreadable or empty file, a bad `slots`, an unknown key.
RankHosts read_rank_hosts(const std::string& path);
RankHosts parse_rank_hosts(const std::string& text, const std::string& file);

// PYPTO_SIM_RANK_HOSTS's file (set by --rank-hosts), or nullopt when it is not set.
std::optional<RankHosts> rank_hosts_from_env();

// Where the host serves its store for `hosts`: MASTER_ADDR / MASTER_PORT when set, else a
// free port on loopback when every machine is this one, else on this machine's name.
StoreAddress store_address_for(const RankHosts& hosts);

// "localhost", a loopback address, or this machine's name.
bool is_this_machine(const std::string& name);

// The launcher's words for `host`: PYPTO_SIM_RANK_LAUNCHER (split at blanks, `{host}`
// replaced; the host appended when no word names it), else ssh in batch mode.
std::vector<std::string> launcher_words(const std::string& host);

// The command of each rank's worker, rank 0 first. std::invalid_argument when the file has
// fewer slots than `world_size`.
std::vector<WorkerCommand> worker_commands(const RankHosts& hosts, int world_size, const StoreAddress& store,
                                           const std::string& own_executable);

}  // namespace pypto_golden::ranks
