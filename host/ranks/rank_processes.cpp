#include "ranks/rank_processes.h"

#include "ranks/build_identity.h"
#include "ranks/rendezvous.h"
#include "sim/comm/env_seconds.h"

#include <ATen/ATen.h>
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace pypto_golden::ranks {

std::string worker_executable() {
  if (const char* env = std::getenv("PYPTO_GOLDEN_BIN"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && self.filename() == "pypto-golden") return self.string();
  // Under python3 this code is the extension module: build/python/ beside build/bin/, or
  // <prefix>/<python install dir>/ below <prefix>/bin/.
  Dl_info info{};
  std::vector<fs::path> tried;
  if (dladdr(reinterpret_cast<void*>(&worker_executable), &info) != 0 && info.dli_fname != nullptr) {
    const fs::path dir = fs::absolute(info.dli_fname).parent_path();
    fs::path prefix = dir;
    for (const auto& part : fs::path(PYPTO_GOLDEN_PYTHON_INSTALL_DIR)) {
      (void)part;
      prefix = prefix.parent_path();
    }
    for (const fs::path& bin : {dir.parent_path() / "bin" / "pypto-golden", prefix / "bin" / "pypto-golden"}) {
      if (fs::is_regular_file(bin, ec)) return bin.lexically_normal().string();
      tried.push_back(bin.lexically_normal());
    }
  }
  std::string where;
  for (const fs::path& t : tried) where += (where.empty() ? "" : ", ") + t.string();
  throw std::runtime_error("cannot find the pypto-golden executable to start rank workers (looked at " +
                           (where.empty() ? std::string("nothing") : where) + "); set PYPTO_GOLDEN_BIN to it");
}

std::unique_ptr<RankProcesses> RankProcesses::start_local(int world_size) {
  const RankHosts here{"", {RankHost{"localhost", world_size, "", 0}}};
  return start(world_size, StoreAddress{"127.0.0.1", 0}, &here);
}

std::unique_ptr<RankProcesses> RankProcesses::start_remote(int world_size, const StoreAddress& listen) {
  return start(world_size, listen, nullptr);
}

std::unique_ptr<RankProcesses> RankProcesses::start_on_hosts(int world_size, const RankHosts& hosts,
                                                             const StoreAddress& listen) {
  return start(world_size, listen, &hosts);
}

std::unique_ptr<RankProcesses> RankProcesses::start(int world_size, const StoreAddress& listen,
                                                    const RankHosts* hosts) {
  const std::chrono::milliseconds timeout =
      sim::seconds_from_env("PYPTO_SIM_RANK_TIMEOUT", std::chrono::milliseconds(30000));
  quiet_c10d_logging();
  std::unique_ptr<RankProcesses> p(new RankProcesses());
  p->world_size_ = world_size;
  p->store_ = RankStore::serve(listen.host, listen.port);
  const HostRecord host{PeerRecord{build_identity(), this_host_name(), getpid()}, world_size};
  publish_host(*p->store_, host);
  if (hosts) {
    bool own = false;  // a machine runs this host's own executable's path
    for (const RankHost& h : hosts->hosts) own = own || h.bin.empty();
    std::vector<WorkerCommand> commands;
    try {
      commands = worker_commands(*hosts, world_size, p->store_->address(), own ? worker_executable() : "");
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
    for (const WorkerCommand& c : commands) p->local_.push_back(c.machine.empty());
    p->workers_ = std::make_unique<LocalWorkers>(commands);
  }
  {
    WithoutGil no_gil;  // workers take seconds to start
    await_ranks(*p->store_, host, timeout, [&] {
      if (p->workers_) p->workers_->check_running();
    });
  }
  p->group_ = GlooGroup::join(p->store_->address(), world_size, world_size + 1, timeout,
                              is_loopback_host(p->store_->address().host));
  return p;
}

void RankProcesses::stop() {
  if (!group_ || stopped_ || abandoned_) return;
  WithoutGil no_gil;
  try {
    for (int r = 0; r < world_size_; ++r) group_->send(r, MessageHeader{MessageKind::Stop, {}});
    for (int answered = 0; answered < world_size_;) {
      int source = -1;
      if (group_->receive_header(source).kind == MessageKind::Stop) ++answered;
    }
    stopped_ = true;
  } catch (const GroupError&) {
    abandoned_ = true;  // a worker has ended already: the rest are killed below
  }
}

RankProcesses::~RankProcesses() {
  WithoutGil no_gil;
  stop();
  // Told to stop, a worker exits at once; one that was not (the start or the run failed)
  // is killed.
  {
    std::lock_guard<std::mutex> lock(workers_mu_);
    if (workers_) workers_->finish(stopped_ ? std::chrono::seconds(5) : std::chrono::seconds(0));
  }
  group_.reset();
}

std::optional<std::pair<std::string, int>> RankProcesses::worker_ended() {
  std::lock_guard<std::mutex> lock(workers_mu_);
  if (!workers_) return std::nullopt;
  if (std::optional<WorkerEnd> end = workers_->reap_ended()) return std::make_pair(describe_worker_end(*end), end->rank);
  return std::nullopt;
}

std::pair<std::string, int> RankProcesses::why_lost(const std::string& error) {
  for (int k = 0; workers_ && k < 50; ++k) {
    if (auto ended = worker_ended()) return *ended;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {error, -1};
}

std::vector<double> RankProcesses::echo(int64_t nbytes) {
  WithoutGil no_gil;
  at::Tensor sent = at::randint(0, 256, {nbytes}, at::kByte);
  at::Tensor back = at::empty({nbytes}, at::kByte);
  std::vector<double> us;
  for (int r = 0; r < world_size_; ++r) {
    const auto start = std::chrono::steady_clock::now();
    int source = -1;
    try {
      group_->send(r, MessageHeader{MessageKind::Echo, {nbytes}}, {sent});
      const MessageHeader reply = group_->receive_header(source);
      if (reply.kind != MessageKind::Echo || source != r)
        throw GroupError("an unexpected message (kind " + std::to_string(static_cast<int64_t>(reply.kind)) +
                         ") from rank " + std::to_string(source));
      group_->receive_payload(source, back);
    } catch (const GroupError& e) {
      abandoned_ = true;
      const auto [why, ended] = why_lost(e.what());
      throw std::runtime_error(ended < 0 ? "rank " + std::to_string(r) + ": " + why : why);
    }
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    if (!at::equal(sent, back))
      throw std::runtime_error("rank " + std::to_string(r) + " sent back other bytes than it was sent");
  }
  return us;
}

}  // namespace pypto_golden::ranks
