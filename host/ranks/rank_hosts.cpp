#include "ranks/rank_hosts.h"

#include "ranks/build_identity.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pypto_golden::ranks {

int RankHosts::slots() const {
  int n = 0;
  for (const RankHost& h : hosts) n += h.slots;
  return n;
}

bool RankHosts::this_machine_only() const {
  for (const RankHost& h : hosts)
    if (!is_this_machine(h.name)) return false;
  return true;
}

RankHosts parse_rank_hosts(const std::string& text, const std::string& file) {
  RankHosts out{file, {}};
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument(file + ", line " + std::to_string(number) + ": " + why);
    };
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    RankHost host;
    host.line = number;
    if (!(words >> host.name)) continue;
    if (host.name.find('=') != std::string::npos)
      throw bad("a line starts with the machine's name, got '" + host.name + "'");
    for (std::string word; words >> word;) {
      const size_t eq = word.find('=');
      const std::string key = word.substr(0, eq == std::string::npos ? word.size() : eq);
      const std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
      if (key == "slots") {
        if (value.empty() || value.size() > 4 || value.find_first_not_of("0123456789") != std::string::npos ||
            std::atoi(value.c_str()) < 1)
          throw bad("slots must be a positive integer (the ranks " + host.name + " runs), got '" + value + "'");
        host.slots = std::atoi(value.c_str());
      } else if (key == "bin") {
        if (value.empty()) throw bad("bin= needs the path of pypto-golden on " + host.name);
        host.bin = value;
      } else {
        throw bad("'" + word + "' is not slots=N or bin=PATH");
      }
    }
    out.hosts.push_back(host);
  }
  if (out.hosts.empty()) throw std::invalid_argument(file + ": lists no machine (a line is NAME [slots=N] [bin=PATH])");
  return out;
}

RankHosts read_rank_hosts(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_rank_hosts(text.str(), path);
}

std::optional<RankHosts> rank_hosts_from_env() {
  const char* path = std::getenv("PYPTO_SIM_RANK_HOSTS");
  if (path == nullptr || *path == '\0') return std::nullopt;
  return read_rank_hosts(path);
}

StoreAddress store_address_for(const RankHosts& hosts) {
  if (std::optional<StoreAddress> env = store_address_from_env()) return *env;
  return StoreAddress{hosts.this_machine_only() ? "127.0.0.1" : this_host_name(), 0};
}

bool is_this_machine(const std::string& name) { return is_loopback_host(name) || name == this_host_name(); }

std::vector<std::string> launcher_words(const std::string& host) {
  const char* env = std::getenv("PYPTO_SIM_RANK_LAUNCHER");
  std::istringstream words(env != nullptr && *env != '\0' ? env : "ssh -o BatchMode=yes {host}");
  std::vector<std::string> out;
  bool named = false;
  for (std::string w; words >> w;) {
    for (size_t at = w.find("{host}"); at != std::string::npos; at = w.find("{host}", at + host.size())) {
      w.replace(at, 6, host);
      named = true;
    }
    out.push_back(w);
  }
  if (!named) out.push_back(host);
  return out;
}

std::vector<WorkerCommand> worker_commands(const RankHosts& hosts, int world_size, const StoreAddress& store,
                                           const std::string& own_executable) {
  if (hosts.slots() < world_size)
    throw std::invalid_argument("the program runs " + std::to_string(world_size) + " ranks, but " + hosts.file +
                                " has slots for " + std::to_string(hosts.slots()) +
                                ": give its machines more slots=N, or list more machines");
  std::vector<WorkerCommand> out;
  for (const RankHost& h : hosts.hosts) {
    for (int s = 0; s < h.slots && static_cast<int>(out.size()) < world_size; ++s) {
      const std::string rank = std::to_string(out.size());
      WorkerCommand c;
      if (!is_this_machine(h.name)) {
        c.machine = h.name;
        c.argv = launcher_words(h.name);
        for (const std::string& w : c.argv) c.launcher += (c.launcher.empty() ? "" : " ") + w;
      }
      for (const std::string& w : {h.bin.empty() ? own_executable : h.bin, std::string("--worker"),
                                   std::string("--store"), store.text(), std::string("--rank"), rank,
                                   std::string("--world-size"), std::to_string(world_size)})
        c.argv.push_back(w);
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace pypto_golden::ranks
