#include "sim/comm/remote_ranks.h"

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pypto_golden::sim {
namespace {
std::atomic<RemoteRanksMaker> registered{nullptr};
}

bool ranks_in_processes() {
  const char* raw = std::getenv("PYPTO_SIM_RANKS");
  const std::string v = raw == nullptr ? "" : raw;
  const char* hosts = std::getenv("PYPTO_SIM_RANK_HOSTS");
  const bool placed = hosts != nullptr && *hosts != '\0';
  if (placed && v == "thread")
    throw std::invalid_argument(std::string("PYPTO_SIM_RANK_HOSTS=") + hosts +
                                " starts the ranks in worker processes, but PYPTO_SIM_RANKS=thread keeps them in "
                                "this one: unset one of them");
  if (v.empty()) return placed;
  if (v == "thread") return false;
  if (v == "process") return true;
  throw std::invalid_argument("PYPTO_SIM_RANKS must be 'thread' or 'process', got '" + v + "'");
}

void set_remote_ranks_maker(RemoteRanksMaker maker) { registered = maker; }

std::unique_ptr<RemoteRanks> make_remote_ranks(const Program& program, CommDomain& domain) {
  const RemoteRanksMaker maker = registered;
  if (maker == nullptr)
    throw std::runtime_error("PYPTO_SIM_RANKS=process needs pypto-golden's run pipeline to start rank workers");
  return maker(program, domain);
}

}  // namespace pypto_golden::sim
