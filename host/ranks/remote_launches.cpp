#include "ranks/remote_launches.h"

#include "ranks/changed_bytes.h"
#include "ranks/rank_processes.h"
#include "ranks/recorded_tasks.h"
#include "ranks/shipped_frame.h"
#include "ranks/store_address.h"
#include "sim/comm/comm_domain.h"
#include "sim/interrupt.h"
#include "sim/kernel_error.h"
#include "sim/statements.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace pypto_golden::ranks {
namespace {

class RemoteLaunches : public sim::RemoteRanks {
 public:
  RemoteLaunches(const sim::Program& program, sim::CommDomain& domain) : domain_(domain) {
    const int world = domain.world_size();
    // The machines of --rank-hosts, where this host starts them; else with torchrun's
    // MASTER_ADDR / MASTER_PORT, workers started elsewhere (other machines) by hand, which
    // come to this host's store there; else this host starts them beside it.
    std::optional<RankHosts> hosts;
    try {
      hosts = rank_hosts_from_env();
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("PYPTO_SIM_RANK_HOSTS: ") + e.what());
    }
    try {
      share_ = share_host_memory_wanted();
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
    if (hosts)
      ranks_ = RankProcesses::start_on_hosts(world, *hosts, store_address_for(*hosts));
    else if (const std::optional<StoreAddress> listen = store_address_from_env())
      ranks_ = RankProcesses::start_remote(world, *listen);
    else
      ranks_ = RankProcesses::start_local(world);
    at::Tensor ids = at::empty({world}, at::kLong);
    for (int r = 0; r < world; ++r) ids[r] = domain.device_id(r);
    post_to_ranks_and_wait(MessageHeader{MessageKind::Program, {static_cast<int64_t>(program.text.size()), world}},
                           {text_payload(program.text), ids});
    busy_us_.assign(static_cast<size_t>(world), 0.0);
    service_ = std::thread([this] { serve(); });
  }

  ~RemoteLaunches() override {
    bool clean = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      clean = !lost_ && launches_.empty();
    }
    if (clean) {
      // Every worker answers its Stop to the service, which then ends.
      try {
        post_to_ranks(MessageHeader{MessageKind::Stop, {}});
      } catch (const GroupError&) {
        clean = false;
      }
      std::unique_lock<std::mutex> lock(mu_);
      clean = clean && done_.wait_for(lock, std::chrono::seconds(5), [&] { return stopped_ == domain_.world_size(); });
    }
    stopping_ = true;
    group().stop_receiving();
    if (service_.joinable()) service_.join();
    if (clean) ranks_->mark_stopped();
    else ranks_->abandon();
    ranks_.reset();  // reaps the workers (kills them unless they were stopped)
  }

  void allocate(int64_t nbytes) override {
    post_to_ranks_and_wait(MessageHeader{MessageKind::Alloc, {nbytes}});
  }

  void keep_residents(const std::vector<sim::RankResident>& residents) override {
    std::lock_guard<std::mutex> lock(mu_);
    residents_.clear();
    for (const sim::RankResident& r : residents) residents_[r.storage] = r.fresh;
  }

  void launch(int rank, const sim::LaunchStmt& launch, int k, const sim::Frame& frame, bool bound) override {
    ShippedFrame shipped = pack_frame(frame, launch.reads(bound), domain_);
    std::vector<std::pair<int, MessageHeader>> before;  // Forget / Return, ahead of the launch
    int64_t id = 0;
    std::string text;
    bool travels = false;  // bytes go with its Data message; else it starts without one
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = next_id_++;
      Pending pending{rank, std::move(shipped.regions), std::move(shipped.granules), {}, {}, {}, false, false,
                      std::nullopt};
      pending.keeping = keep_regions(rank, read_only_regions(launch, frame, shipped.storages), shipped.storages,
                                     shipped.starts, pending.regions, pending.awaiting, before);
      set_region_keeping(shipped, pending.keeping);
      pending.shared = share_regions(rank, pending.regions, pending.keeping);
      set_region_sharing(shipped, pending.shared);
      travels = !pending.awaiting.empty();
      for (size_t r = 0; r < pending.regions.size(); ++r)
        travels = travels || (pending.keeping[r].how != Keeping::Use && !pending.shared[r]);
      text = shipped.text.dump();
      launches_[id] = std::move(pending);
    }
    for (const auto& [to, header] : before) group().post(to, header);
    group().post(rank, MessageHeader{MessageKind::Launch,
                                     {launch.index(), k, id, static_cast<int64_t>(text.size()), bound ? 1 : 0,
                                      travels ? 0 : 1}},
                 {text_payload(text)});
  }

  std::string signal_left_set() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (lost_) return "";
      checks_ = domain_.world_size();
      left_set_.clear();
    }
    post_to_ranks(MessageHeader{MessageKind::Check, {}});
    std::unique_lock<std::mutex> lock(mu_);
    await_replies(lock, checks_);
    return left_set_;
  }

  void record_tasks() override { post_to_ranks(MessageHeader{MessageKind::Record, {}}); }

  void collect_tasks(sim::TaskRecorder& into) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (lost_) return;
      task_replies_ = domain_.world_size();
      task_texts_.assign(static_cast<size_t>(domain_.world_size()), std::string());
    }
    post_to_ranks(MessageHeader{MessageKind::Tasks, {}});
    std::vector<std::string> texts;
    {
      std::unique_lock<std::mutex> lock(mu_);
      await_replies(lock, task_replies_);
      if (task_replies_ > 0) return;  // a worker was lost: the run fails with that
      texts = std::move(task_texts_);
    }
    for (size_t r = 0; r < texts.size(); ++r) add_recorded_tasks(into, texts[r], static_cast<int>(r));
  }

  void join(std::vector<double>& busy_us, std::exception_ptr& failure, int& failed_rank) override {
    std::unique_lock<std::mutex> lock(mu_);
    while (!launches_.empty() && !lost_) {
      done_.wait_for(lock, std::chrono::milliseconds(50));
      if (sim::interrupt_requested()) {  // Ctrl-C: the workers are stopped with this object
        lost_ = true;
        throw sim::Interrupted();
      }
      // A worker that ended may leave no error on the group (a receive from any rank
      // does not fail for one closed connection): its end is looked for here.
      lock.unlock();
      const auto ended = ranks_->worker_ended();
      lock.lock();
      if (ended) lose(lock, ended->first, ended->second);
    }
    for (size_t r = 0; r < busy_us.size() && r < busy_us_.size(); ++r) busy_us[r] += busy_us_[r];
    std::fill(busy_us_.begin(), busy_us_.end(), 0.0);
    if (!failure_.empty()) {
      failure = std::make_exception_ptr(std::runtime_error(failure_));
      failed_rank = failed_rank_;
      if (!lost_) failure_.clear();  // a lost worker fails every later join too
    }
  }

 private:
  struct Pending {
    int rank = -1;
    std::vector<at::Tensor> regions;  // views of the host's memory
    std::vector<int64_t> granules;
    std::vector<RegionKeeping> keeping;
    std::vector<std::optional<SharedBytes>> shared;  // the regions its worker maps
    std::set<int64_t> awaiting;  // kept regions to come back before its data can go
    bool pulled = false;   // its worker asked for its data while it awaited some
    bool holding = false;  // the ranks' clocks are held for it (from its data until it starts)
    std::optional<std::chrono::steady_clock::time_point> started;
  };

  // A region of a resident a worker keeps between launches; while !host_current the host's
  // bytes of it are out of date (the rank's launches since changed only its copy).
  struct Kept {
    const void* storage = nullptr;
    int64_t start = 0, bytes = 0;
    int rank = -1;
    int64_t key = 0;
    bool host_current = true;
    bool overlaps(const void* s, int64_t b, int64_t n) const { return s == storage && b < start + bytes && start < b + n; }
    at::Tensor host_view() const {
      return at::from_blob(const_cast<uint8_t*>(static_cast<const uint8_t*>(storage)) + start, {bytes},
                           at::TensorOptions().dtype(at::kByte));
    }
  };

  // How each region of a launch on `rank` travels. From the second dispatch of a resident
  // on (the first one's results the host reads back), a region of it that the rank kept
  // from an earlier launch goes as the key of the rank's copy; any other region goes as
  // bytes, which the rank keeps. The copies of those bytes other launches kept are dropped
  // first, or, where only they hold its current bytes, sent back first (the launch's data
  // waits for them: `awaiting`). Called with mu_ held.
  std::vector<RegionKeeping> keep_regions(int rank, const std::vector<bool>& read_only,
                                          const std::vector<const void*>& storages,
                                          const std::vector<int64_t>& starts, const std::vector<at::Tensor>& regions,
                                          std::set<int64_t>& awaiting,
                                          std::vector<std::pair<int, MessageHeader>>& messages) {
    std::vector<RegionKeeping> out(regions.size());
    for (size_t i = 0; i < regions.size(); ++i) {
      out[i].read_only = read_only[i];
      const void* storage = storages[i];
      const int64_t start = starts[i], bytes = regions[i].numel();
      for (const auto& [key, back] : returning_)
        if (back.overlaps(storage, start, bytes)) awaiting.insert(key);
      // The dispatch that makes a resident keeps nothing: a run without a benchmark has
      // only that one, and its workers need not hold a copy of every resident.
      const auto resident = residents_.find(storage);
      if (resident == residents_.end() || resident->second) continue;
      auto same = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& k) {
        return k.storage == storage && k.start == start && k.bytes == bytes && k.rank == rank;
      });
      if (same != kept_.end()) {
        same->host_current = same->host_current && read_only[i];
        out[i] = {Keeping::Use, same->key, read_only[i]};
        continue;
      }
      for (auto it = kept_.begin(); it != kept_.end();) {
        if (!it->overlaps(storage, start, bytes)) {
          ++it;
          continue;
        }
        if (it->host_current) {
          messages.emplace_back(it->rank, MessageHeader{MessageKind::Forget, {it->key}});
        } else {
          returning_[it->key] = *it;
          awaiting.insert(it->key);
          messages.emplace_back(it->rank, MessageHeader{MessageKind::Return, {it->key}});
        }
        it = kept_.erase(it);
      }
      const int64_t key = next_key_++;
      kept_.push_back(Kept{storage, start, bytes, rank, key, true});
      out[i] = {Keeping::Keep, key, read_only[i]};
    }
    return out;
  }

  // Per region: where a worker on this machine maps it from, for a region the launch only
  // reads, that the worker does not keep, in memory the host shares (shared_host_memory.h);
  // the worker keeps no copy of those. Called with mu_ held.
  std::vector<std::optional<SharedBytes>> share_regions(int rank, const std::vector<at::Tensor>& regions,
                                                        const std::vector<RegionKeeping>& keeping) const {
    std::vector<std::optional<SharedBytes>> out(regions.size());
    if (!share_ || !ranks_->on_this_machine(rank)) return out;
    for (size_t r = 0; r < regions.size(); ++r)
      if (keeping[r].how == Keeping::No && keeping[r].read_only)
        out[r] = shared_bytes_of(regions[r].const_data_ptr(), regions[r].numel());
    return out;
  }

  // Per region (of `storages`): whether the launch writes none of it. Known of the host
  // program's parameters only (the loader's analysis): a region of another tensor counts
  // as written.
  static std::vector<bool> read_only_regions(const sim::LaunchStmt& launch, const sim::Frame& frame,
                                             const std::vector<const void*>& storages) {
    std::map<const void*, bool> written;  // by storage: whether a parameter over it is written
    for (size_t k = 0; k < frame.function->params.size() && k < frame.slots.size(); ++k)
      if (frame.slots[k].is_tensor()) written[frame.slots[k].tensor.storage().data()] |= launch.may_write_param(k);
    std::vector<bool> out;
    for (const void* s : storages) {
      const auto it = written.find(s);
      out.push_back(it != written.end() && !it->second);
    }
    return out;
  }

  // Sends launch `id` its data: the bytes of its regions that travel.
  void send_data(int64_t id) {
    std::vector<at::Tensor> data;
    int rank = -1;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const Pending& launch = launches_.at(id);
      rank = launch.rank;
      for (size_t r = 0; r < launch.regions.size(); ++r)
        if (launch.keeping[r].how != Keeping::Use && !launch.shared[r]) data.push_back(launch.regions[r]);
    }
    // The ranks' waits stand still until the launch has started: whatever they wait
    // for from this rank cannot come before (its data may take seconds to arrive).
    hold_clocks(id, true);
    group().post(rank, MessageHeader{MessageKind::Data, {id}}, std::move(data));
  }

  // A kept region comes back: into the host's memory, then the launches that awaited it
  // get their data.
  void receive_returned(int source, const MessageHeader& h) {
    const int64_t key = h.args[0];
    Kept region;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = returning_.find(key);
      if (it == returning_.end())
        throw GroupError("rank " + std::to_string(source) + " sent back a region the host did not ask for");
      region = it->second;
    }
    if (h.args[1] != 0) group().receive_payload(source, region.host_view());
    std::vector<int64_t> ready;
    {
      std::lock_guard<std::mutex> lock(mu_);
      returning_.erase(key);
      for (auto& [id, launch] : launches_)
        if (launch.awaiting.erase(key) > 0 && launch.awaiting.empty() && launch.pulled) ready.push_back(id);
    }
    for (int64_t id : ready) send_data(id);
  }

  // Launch `id` starts now: every running launch that started before it gives its rank's
  // waits that much more time, as if the ranks had started together (as threads do): the
  // late rank needs as long to reach a notify as the early one took to reach its wait.
  void credit_earlier_starts(int64_t id) {
    std::vector<std::pair<int, MessageHeader>> credits;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = launches_.find(id);
      if (it == launches_.end()) return;
      const auto now = std::chrono::steady_clock::now();
      it->second.started = now;
      for (const auto& [other, launch] : launches_) {
        if (other == id || !launch.started) continue;
        const auto behind = std::chrono::duration_cast<std::chrono::milliseconds>(now - *launch.started);
        credits.emplace_back(launch.rank, MessageHeader{MessageKind::Credit, {other, behind.count()}});
      }
    }
    for (const auto& [rank, header] : credits) group().post(rank, header);
  }

  // Waits until the service has counted `pending` down to 0 (every rank's reply) or a worker
  // is lost. Called with mu_ held.
  void await_replies(std::unique_lock<std::mutex>& lock, const int& pending) {
    while (pending > 0 && !lost_) {
      done_.wait_for(lock, std::chrono::milliseconds(50));
      if (sim::interrupt_requested()) throw sim::Interrupted();
    }
  }

  // Holds (or lets go) every rank's wait clock for launch `id`, once each way.
  void hold_clocks(int64_t id, bool hold) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = launches_.find(id);
      if (it == launches_.end() || it->second.holding == hold) return;
      it->second.holding = hold;
    }
    post_to_ranks(MessageHeader{MessageKind::HoldClock, {hold ? 1 : -1}});
  }

  GlooGroup& group() { return ranks_->group(); }

  // The same message to every rank. GroupError once the group can send nothing more (a
  // post fails for all ranks or none).
  void post_to_ranks(const MessageHeader& header, const std::vector<at::Tensor>& payload = {}) {
    for (int r = 0; r < domain_.world_size(); ++r) group().post(r, header, payload);
  }

  // post_to_ranks(), returning once every rank has it. For what every rank must have before
  // any rank runs a launch (the program, a window buffer): the host sends to each worker
  // from its own thread, so without this a launch could reach one rank, and its puts
  // another, before the other's copy of that message (a Gloo send ends once its receiver
  // has taken it, and a worker applies its messages in the order it receives them).
  void post_to_ranks_and_wait(const MessageHeader& header, const std::vector<at::Tensor>& payload = {}) {
    std::vector<std::future<void>> sent;
    for (int r = 0; r < domain_.world_size(); ++r) sent.push_back(group().post_tracked(r, header, payload));
    try {
      for (std::future<void>& s : sent) group().wait_sent(s);
    } catch (const GroupError& e) {
      throw GroupError(ranks_->why_lost(e.what()).first);
    }
  }

  // A worker ended or cannot be reached: the run fails naming it, and the other ranks stop
  // waiting for it. Called with mu_ held.
  void lose(std::unique_lock<std::mutex>& lock, const std::string& why, int rank) {
    if (failure_.empty()) {
      failure_ = "its worker process ended: " + why;
      failed_rank_ = rank >= 0 ? rank : launches_.empty() ? 0 : launches_.begin()->second.rank;
    }
    lost_ = true;
    done_.notify_all();
    lock.unlock();
    try {
      post_to_ranks(MessageHeader{MessageKind::Abort, {}});
    } catch (const GroupError&) {
      // Nothing can be sent any more: the workers are killed with this object.
    }
    lock.lock();
  }

  void fail(int rank, const std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_.empty()) {
      failure_ = message;
      failed_rank_ = rank;
    }
  }

  // Receives the workers' messages until the group ends.
  void serve() {
    try {
      for (;;) {
        int source = -1;
        const MessageHeader h = group().receive_header(source);
        const int64_t id = h.args[0];
        if (h.kind == MessageKind::Pull) {
          // The host's memory itself, not a copy: it is read as the sender gets to it, like
          // a rank thread reads it in-process (another rank's results merged meanwhile are
          // seen or not, as there).
          bool wait = false;
          {
            std::lock_guard<std::mutex> lock(mu_);
            Pending& launch = launches_.at(id);
            wait = launch.pulled = !launch.awaiting.empty();
          }
          if (!wait) send_data(id);
        } else if (h.kind == MessageKind::Returned) {
          receive_returned(source, h);
        } else if (h.kind == MessageKind::Started) {
          hold_clocks(id, false);
          credit_earlier_starts(id);
        } else if (h.kind == MessageKind::Result) {
          receive_result(source, h);
        } else if (h.kind == MessageKind::Error) {
          hold_clocks(id, false);
          fail(source, group().receive_text(source, h.args[1]));
          post_to_ranks(MessageHeader{MessageKind::Abort, {}});
          finish(id);
        } else if (h.kind == MessageKind::Stop) {
          std::lock_guard<std::mutex> lock(mu_);
          if (++stopped_ == domain_.world_size()) {
            done_.notify_all();
            return;
          }
        } else if (h.kind == MessageKind::TasksReply) {
          std::string text = group().receive_text(source, h.args[0]);
          std::lock_guard<std::mutex> lock(mu_);
          task_texts_.at(static_cast<size_t>(source)) = std::move(text);
          if (--task_replies_ == 0) done_.notify_all();
        } else if (h.kind == MessageKind::CheckReply) {
          const std::string text = group().receive_text(source, h.args[0]);
          std::lock_guard<std::mutex> lock(mu_);
          if (left_set_.empty()) left_set_ = text;
          if (--checks_ == 0) done_.notify_all();
        } else {
          throw GroupError("an unexpected message (kind " + std::to_string(static_cast<int64_t>(h.kind)) +
                           ") from rank " + std::to_string(source));
        }
      }
    } catch (const GroupError& e) {
      // The workers were stopped (this object's end), or one ended: no launch can finish.
      if (!stopping_) {
        const auto [why, ended] = ranks_->why_lost(e.what());
        std::unique_lock<std::mutex> lock(mu_);
        lose(lock, why, ended);
      }
      std::lock_guard<std::mutex> lock(mu_);
      lost_ = true;
      done_.notify_all();
    }
  }

  void receive_result(int source, const MessageHeader& h) {
    const int64_t id = h.args[0];
    const int64_t changed = h.args[2];
    at::Tensor which = at::empty({changed, 2}, at::kLong);
    if (changed > 0) group().receive_payload(source, which);
    Pending launch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      launch = launches_.at(id);
      busy_us_.at(static_cast<size_t>(source)) += static_cast<double>(h.args[1]) / 1000.0;
    }
    const int64_t* w = which.const_data_ptr<int64_t>();
    for (int64_t c = 0; c < changed; ++c) {
      const size_t r = static_cast<size_t>(w[2 * c]);
      const at::Tensor& host = launch.regions.at(r);
      const int64_t granule = effective_granule(host.numel(), launch.granules.at(r));
      if (w[2 * c + 1] >= 0) {
        // Each run straight into the host's memory.
        at::Tensor runs = at::empty({w[2 * c + 1], 2}, at::kLong);
        group().receive_payload(source, runs);
        const int64_t* run = runs.const_data_ptr<int64_t>();
        for (int64_t k = 0; k < runs.size(0); ++k) {
          if (run[2 * k] < 0 || run[2 * k + 1] <= 0 || run[2 * k] + run[2 * k + 1] > host.numel())
            throw GroupError("rank " + std::to_string(source) + " sent back a run of bytes outside its region");
          group().receive_payload(source, host.narrow(0, run[2 * k], run[2 * k + 1]));
        }
      } else {
        ChangedBytes changes{at::Tensor(), {at::empty_like(host)}, at::empty({host.numel() / granule}, at::kBool)};
        group().receive_payload(source, changes.pieces[0]);
        group().receive_payload(source, changes.mask);
        apply_mask(changes, host, granule);
      }
    }
    finish(id);
  }

  void finish(int64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    launches_.erase(id);
    if (launches_.empty()) done_.notify_all();
  }

  sim::CommDomain& domain_;
  std::unique_ptr<RankProcesses> ranks_;
  bool share_ = true;  // PYPTO_SIM_SHARE_HOST_MEMORY
  std::thread service_;
  std::mutex mu_;
  std::condition_variable done_;
  std::map<int64_t, Pending> launches_;
  int64_t next_id_ = 1;
  std::map<const void*, bool> residents_;  // of this dispatch: storage, fresh
  std::vector<Kept> kept_;                 // what the workers keep
  std::map<int64_t, Kept> returning_;      // by key: asked back, not yet here
  int64_t next_key_ = 1;
  std::vector<double> busy_us_;
  std::string failure_;
  int failed_rank_ = -1;
  bool lost_ = false;
  std::atomic<bool> stopping_{false};
  int checks_ = 0;         // Check replies still to come
  int task_replies_ = 0;   // TasksReply still to come
  std::vector<std::string> task_texts_;  // by rank
  int stopped_ = 0;        // workers that answered their Stop
  std::string left_set_;   // the first rank's signal left set
};

}  // namespace

std::unique_ptr<sim::RemoteRanks> start_remote_ranks(const sim::Program& program, sim::CommDomain& domain) {
  return std::make_unique<RemoteLaunches>(program, domain);
}

}  // namespace pypto_golden::ranks
