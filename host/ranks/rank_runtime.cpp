#include "ranks/rank_runtime.h"

#include "ranks/changed_bytes.h"
#include "ranks/rank_worker.h"
#include "ranks/recorded_tasks.h"
#include "ranks/shipped_frame.h"
#include "sim/comm/comm_domain.h"
#include "sim/comm/rank_queues.h"
#include "sim/device.h"
#include "sim/device_registry.h"
#include "sim/interrupt.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"
#include "sim/statements.h"
#include "sim/task_recorder.h"

#include <ATen/ATen.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <mutex>

namespace pypto_golden::ranks {
namespace {

// A view's sizes then strides, as one int64 tensor.
at::Tensor geometry(const at::Tensor& view) {
  const int64_t n = view.dim();
  at::Tensor g = at::empty({2 * n}, at::kLong);
  int64_t* p = g.data_ptr<int64_t>();
  for (int64_t d = 0; d < n; ++d) {
    p[d] = view.size(d);
    p[n + d] = view.stride(d);
  }
  return g;
}

// Waits on this rank stand still while data for it arrives from a peer: that peer is at
// work, and a large put takes longer than a wait's timeout on a slow network.
class ClockHeld {
 public:
  explicit ClockHeld(sim::WindowTransport& transport) : transport_(transport) { transport_.hold_clock(1); }
  ~ClockHeld() { transport_.hold_clock(-1); }
  ClockHeld(const ClockHeld&) = delete;
  ClockHeld& operator=(const ClockHeld&) = delete;

 private:
  sim::WindowTransport& transport_;
};

// Byte buffers the size of a launch's regions, kept from one launch to the next: the first
// write to a fresh allocation of tens of MiB costs a page fault per 4 KiB, more than
// receiving the bytes does.
class BufferPool {
 public:
  at::Tensor take(int64_t nbytes) {
    if (nbytes < kSmallest) return at::empty({nbytes}, at::kByte);
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      // A buffer still in a message on its way out is not free yet.
      if (it->numel() == nbytes && it->storage().use_count() == 1) {
        at::Tensor t = std::move(*it);
        free_.erase(it);
        return t;
      }
    }
    return at::empty({nbytes}, at::kByte);
  }

  void give(const std::vector<at::Tensor>& buffers) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const at::Tensor& b : buffers) {
      if (b.numel() < kSmallest) continue;
      free_.push_back(b);
      kept_ += b.numel();
    }
    while (free_.size() > kMostBuffers || kept_ > kMostBytes) {
      kept_ -= free_.front().numel();
      free_.pop_front();
    }
  }

 private:
  // Below this, malloc reuses memory anyway; the rest is bounded so an idle worker gives
  // back what a large launch needed.
  static constexpr int64_t kSmallest = int64_t{1} << 20;
  static constexpr size_t kMostBuffers = 16;
  static constexpr int64_t kMostBytes = int64_t{2} << 30;
  int64_t kept_ = 0;
  std::mutex mu_;
  std::deque<at::Tensor> free_;
};

class Runtime : public sim::PeerLinks {
 public:
  Runtime(GlooGroup& group, int rank) : group_(group), rank_(rank), host_(group.size() - 1) {}

  ~Runtime() override {
    // After a Stop every launch is done; after a lost host a launch may still wait for a
    // signal: it stops now.
    if (domain_) domain_->transport().abort();
    if (queue_) queue_->wait_idle();
    if (device_) {
      device_->set_recorder(nullptr);
      device_->bind_rank(nullptr, -1);
    }
  }

  int serve() {
    for (;;) {
      int source = -1;
      const MessageHeader h = group_.receive_header(source);
      switch (h.kind) {
        case MessageKind::Stop:
          // Answered, so the host knows the Stop arrived before it goes: a host on another
          // machine has no other way to tell, and its end would cut the message off.
          group_.send(source, MessageHeader{MessageKind::Stop, {}});
          return kWorkerStopped;
        case MessageKind::Echo: {
          if (!echo_.defined() || echo_.numel() != h.args[0]) echo_ = at::empty({h.args[0]}, at::kByte);
          group_.receive_payload(source, echo_);
          group_.send(source, h, {echo_});
          break;
        }
        case MessageKind::Program:
          on_program(source, h);
          break;
        case MessageKind::Alloc:
          domain().transport().allocate(h.args[0]);
          break;
        case MessageKind::Launch:
          on_launch(source, h);
          break;
        case MessageKind::Data:
          on_data(source, h);
          break;
        case MessageKind::Abort:
          domain().transport().abort();
          break;
        case MessageKind::HoldClock:
          domain().transport().hold_clock(static_cast<int>(h.args[0]));
          break;
        case MessageKind::Credit:
          // For the launch running now: a later one starts with none.
          if (h.args[0] == running_) domain().transport().set_wait_credit(std::chrono::milliseconds(h.args[1]));
          break;
        case MessageKind::Check: {
          // The dispatch is over (the host has every launch's result): its waits start over.
          const std::string left = domain().signal_left_set();
          domain().begin_dispatch();
          group_.post(source, MessageHeader{MessageKind::CheckReply, {static_cast<int64_t>(left.size())}},
                      {text_payload(left)});
          break;
        }
        case MessageKind::Record:
          queue_->submit(0, [this] {
            recorder_ = std::make_unique<sim::TaskRecorder>();
            device_->set_recorder(recorder_.get());
          });
          break;
        case MessageKind::Tasks:
          on_tasks(source);
          break;
        case MessageKind::Forget:
        case MessageKind::Return:
          on_kept(source, h);
          break;
        case MessageKind::Put:
          on_put(source, h);
          break;
        case MessageKind::Get:
          on_get(source, h);
          break;
        case MessageKind::GetReply:
          on_get_reply(source, h);
          break;
        case MessageKind::Notify: {
          const at::Tensor slot = domain().view_at(rank_, static_cast<int>(h.args[0]), h.args[1], {1}, {1}, at::kInt);
          domain().transport().notify(slot.data_ptr<int32_t>(), static_cast<int32_t>(h.args[2]),
                                      h.args[3] == 0 ? sim::NotifyOp::AtomicAdd : sim::NotifyOp::Set);
          break;
        }
        default:
          throw GroupError("a message of unknown kind " + std::to_string(static_cast<int64_t>(h.kind)) + " from rank " +
                           std::to_string(source) + " (a process of another build?)");
      }
    }
  }

  // sim::PeerLinks
  void write(int peer, int buffer, int64_t offset, const at::Tensor& view, const at::Tensor& value,
             bool add) override {
    const MessageHeader header{MessageKind::Put, {buffer, offset, view.dim(), static_cast<int64_t>(view.scalar_type()),
                                                  add ? 1 : 0, static_cast<int64_t>(value.scalar_type())}};
    const int64_t nbytes = value.numel() * static_cast<int64_t>(value.element_size());
    if (nbytes >= kSentInPlace && value.is_contiguous()) {
      // The kernel's own bytes, waited for until they are out: copying them first costs
      // more than the wait (the kernel goes on to wait for its peers anyway).
      group_.post_and_wait(peer, header, {geometry(view), value});
      return;
    }
    // A copy: the kernel may change its tile before the message is out.
    const at::Tensor staging = buffers_.take(nbytes);
    at::Tensor data = staging.view(value.scalar_type()).view(value.sizes()).copy_(value);
    group_.post(peer, header, {geometry(view), data});
    buffers_.give({staging});
  }

  void read(int peer, int buffer, int64_t offset, const at::Tensor& view, const at::Tensor& out) override {
    const int64_t request = next_request_++;
    std::promise<void> arrived;
    std::future<void> done = arrived.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      gets_[request] = PendingGet{out, std::move(arrived)};
    }
    group_.post(peer, MessageHeader{MessageKind::Get, {buffer, offset, view.dim(),
                                                       static_cast<int64_t>(view.scalar_type()), request}},
                {geometry(view)});
    while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) sim::check_interrupt();
    done.get();
  }

  void notify(int peer, int buffer, int64_t offset, int32_t value, sim::NotifyOp op) override {
    group_.post(peer, MessageHeader{MessageKind::Notify, {buffer, offset, value, op == sim::NotifyOp::Set ? 1 : 0}});
  }

 private:
  struct PendingData {
    std::vector<int64_t> sizes;
    std::vector<RegionKeeping> keeping;
    std::vector<std::optional<SharedBytes>> shared;  // mapped from the host's memory, not sent
    std::promise<std::vector<at::Tensor>> arrived;
  };
  struct PendingGet {
    at::Tensor out;
    std::promise<void> arrived;
  };

  sim::CommDomain& domain() {
    if (!domain_) throw GroupError("a message before the host's program");
    return *domain_;
  }

  void on_program(int source, const MessageHeader& h) {
    const int world = static_cast<int>(h.args[1]);
    const std::string text = group_.receive_text(source, h.args[0]);
    at::Tensor ids = at::empty({world}, at::kLong);
    group_.receive_payload(source, ids);
    program_ = sim::parse_program(text, "the host's program");
    std::vector<int> device_ids(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + world);
    device_ = sim::simulated_device(device_ids.at(static_cast<size_t>(rank_)));
    std::vector<sim::Device*> devices(static_cast<size_t>(world), nullptr);
    devices[static_cast<size_t>(rank_)] = device_.get();
    std::vector<bool> held(static_cast<size_t>(world), false);
    held[static_cast<size_t>(rank_)] = true;
    domain_ = std::make_unique<sim::CommDomain>(device_ids, devices, sim::wait_timeout_from_env(), held);
    domain_->set_peer_links(this);
    device_->bind_rank(domain_.get(), rank_);
    queue_ = std::make_unique<sim::RankQueues>(1);
  }

  void on_launch(int source, const MessageHeader& h) {
    const std::string text = group_.receive_text(source, h.args[3]);
    const int index = static_cast<int>(h.args[0]);
    const int k = static_cast<int>(h.args[1]);
    const int64_t id = h.args[2];
    const bool bound = h.args[4] != 0;
    const bool no_data = h.args[5] != 0;
    nlohmann::json frame_text = nlohmann::json::parse(text);
    std::vector<RegionKeeping> keeping = region_keeping(frame_text);
    std::vector<std::optional<SharedBytes>> shared = region_sharing(frame_text);
    std::future<std::vector<at::Tensor>> data;
    {
      std::lock_guard<std::mutex> lock(mu_);
      PendingData& p = data_[id];
      p.sizes = region_bytes(frame_text);
      p.keeping = keeping;
      p.shared = shared;
      data = p.arrived.get_future();
    }
    auto job = std::make_shared<std::packaged_task<void()>>(
        [this, index, k, id, bound, no_data, frame_text = std::move(frame_text), keeping = std::move(keeping),
         shared = std::move(shared), data = std::move(data)]() mutable {
          run_launch(index, k, id, bound, no_data, frame_text, keeping, shared, data);
        });
    queue_->submit(0, [job] { (*job)(); });
  }

  // On the rank's thread: the launch with the host's bytes as they are now.
  void run_launch(int index, int k, int64_t id, bool bound, bool no_data, const nlohmann::json& frame_text,
                  const std::vector<RegionKeeping>& keeping, const std::vector<std::optional<SharedBytes>>& shared,
                  std::future<std::vector<at::Tensor>>& data) {
    std::vector<at::Tensor> regions;
    // What the rank keeps stays (a failed launch's too: the host may ask for it back); a
    // mapping of the host's memory goes.
    struct KeepOrGive {
      Runtime& rt;
      std::vector<at::Tensor>& regions;
      const std::vector<RegionKeeping>& keeping;
      const std::vector<std::optional<SharedBytes>>& shared;
      ~KeepOrGive() {
        std::lock_guard<std::mutex> lock(rt.mu_);
        for (size_t r = 0; r < regions.size(); ++r) {
          if (shared.at(r)) continue;
          if (keeping.at(r).how == Keeping::No) rt.buffers_.give({regions[r]});
          else rt.kept_[keeping[r].key] = regions[r];
        }
      }
    } keep_or_give{*this, regions, keeping, shared};
    try {
      if (no_data) {  // here, on the rank's thread, after the launches that kept its regions
        take_data(-1, id);
      } else {
        group_.post(host_, MessageHeader{MessageKind::Pull, {id}});
      }
      regions = data.get();
      // What the host has, to find what the launch changed: not of a region it does not
      // write, nor of one the rank keeps (its changes stay here).
      std::vector<at::Tensor> before;
      for (size_t r = 0; r < regions.size(); ++r)
        if (keeping.at(r).how != Keeping::Use && !keeping[r].read_only)
          before.push_back(buffers_.take(regions[r].numel()).copy_(regions[r]));
        else
          before.emplace_back();
      run_on_regions(index, k, id, bound, frame_text, regions, before);
      for (const at::Tensor& b : before)
        if (b.defined()) buffers_.give({b});
    } catch (const std::exception& e) {
      const std::string text = e.what();
      try {
        group_.post(host_, MessageHeader{MessageKind::Error, {id, static_cast<int64_t>(text.size())}},
                    {text_payload(text)});
      } catch (const GroupError&) {
        // The host is gone: the service loop ends the worker.
      }
    }
  }

  // The launch on the host's bytes (`regions`, and `before` a copy of them), then what it
  // changed of them back to the host.
  void run_on_regions(int index, int k, int64_t id, bool bound, const nlohmann::json& frame_text,
                      const std::vector<at::Tensor>& regions, const std::vector<at::Tensor>& before) {
    int64_t busy_ns = 0;
    {
      sim::Frame frame;  // its tensors are views of `regions`: gone before they are given back
      frame.function = &program_->entry();
      frame.device = device_.get();
      frame.slots.resize(program_->entry().slot_names.size());
      unpack_frame(frame_text, regions, *domain_, rank_, frame);
      domain_->transport().set_wait_credit(std::chrono::milliseconds(0));
      running_ = id;
      group_.post(host_, MessageHeader{MessageKind::Started, {id}});
      const auto start = std::chrono::steady_clock::now();
      program_->launches.at(static_cast<size_t>(index))->run_chip(frame, rank_, k, bound);
      busy_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    }
    // Per changed region: its index and its run count (-1: the mask form), then its payload.
    const std::vector<int64_t> granules = region_granules(frame_text);
    std::vector<int64_t> which;
    std::vector<at::Tensor> payload;
    for (size_t r = 0; r < regions.size(); ++r) {
      if (!before[r].defined()) continue;  // not written, or kept: nothing goes back
      std::optional<ChangedBytes> changes = find_changes(regions[r], before[r], granules.at(r));
      if (!changes) continue;
      which.push_back(static_cast<int64_t>(r));
      which.push_back(changes->runs.defined() ? changes->runs.size(0) : -1);
      if (changes->runs.defined()) payload.push_back(changes->runs);
      for (at::Tensor& piece : changes->pieces) payload.push_back(std::move(piece));
      if (!changes->runs.defined()) payload.push_back(changes->mask);
    }
    const int64_t changed = static_cast<int64_t>(which.size()) / 2;
    if (changed > 0) payload.insert(payload.begin(), at::tensor(which, at::kLong).view({changed, 2}));
    group_.post(host_, MessageHeader{MessageKind::Result, {id, busy_ns, changed}}, std::move(payload));
  }

  void on_data(int source, const MessageHeader& h) { take_data(source, h.args[0]); }

  // Launch `id`'s regions: those this rank kept, those it maps from the host's memory, and
  // the rest received from `source` (-1: the launch has no Data message, so none travel).
  void take_data(int source, int64_t id) {
    PendingData pending;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = data_.find(id);
      if (it == data_.end()) throw GroupError("data for an unknown launch from rank " + std::to_string(source));
      pending = std::move(it->second);
      data_.erase(it);
    }
    std::vector<at::Tensor> regions;
    for (size_t r = 0; r < pending.sizes.size(); ++r) {
      if (pending.shared.at(r)) {  // mapped below, once every payload of the message is in
        regions.emplace_back();
        continue;
      }
      if (pending.keeping.at(r).how == Keeping::Use) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = kept_.find(pending.keeping[r].key);
        if (it == kept_.end() || it->second.numel() != pending.sizes[r])
          throw GroupError("the host named a region this rank kept (key " + std::to_string(pending.keeping[r].key) +
                           ") that it does not hold");
        regions.push_back(it->second);
        continue;
      }
      if (source < 0)
        throw GroupError("the host sent a launch without data whose region " + std::to_string(r) + " travels");
      regions.push_back(buffers_.take(pending.sizes[r]));
      group_.receive_payload(source, regions.back());
    }
    try {
      for (size_t r = 0; r < regions.size(); ++r)
        if (pending.shared[r]) regions[r] = map_shared_bytes(*pending.shared[r]);
    } catch (const std::runtime_error&) {  // the launch fails with it, not the worker
      pending.arrived.set_exception(std::current_exception());
      return;
    }
    pending.arrived.set_value(std::move(regions));
  }

  // The tasks recorded since Record, after the launches queued so far; recording stops.
  void on_tasks(int source) {
    queue_->submit(0, [this, source] {
      device_->set_recorder(nullptr);
      const sim::TaskRecorder none;  // a Tasks without a Record: nothing recorded
      const std::string text = recorded_tasks_text(recorder_ ? *recorder_ : none);
      recorder_.reset();
      try {
        group_.post(source, MessageHeader{MessageKind::TasksReply, {static_cast<int64_t>(text.size())}},
                    {text_payload(text)});
      } catch (const GroupError&) {
        // The host is gone: the service loop ends the worker.
      }
    });
  }

  // Forget / Return of a kept region: after the launches queued so far, which may use it.
  void on_kept(int source, const MessageHeader& h) {
    const int64_t key = h.args[0];
    const bool send_back = h.kind == MessageKind::Return;
    queue_->submit(0, [this, source, key, send_back] {
      at::Tensor region;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = kept_.find(key);
        if (it != kept_.end()) {
          region = std::move(it->second);
          kept_.erase(it);
        }
      }
      if (!send_back) return;
      try {
        if (region.defined())
          group_.post(source, MessageHeader{MessageKind::Returned, {key, 1}}, {region});
        else  // its launch never got its data (a failed run): the host stops waiting for it
          group_.post(source, MessageHeader{MessageKind::Returned, {key, 0}});
      } catch (const GroupError&) {
        // The host is gone: the service loop ends the worker.
      }
    });
  }

  std::pair<std::vector<int64_t>, std::vector<int64_t>> receive_geometry(int source, int64_t axes) {
    at::Tensor g = at::empty({2 * axes}, at::kLong);
    group_.receive_payload(source, g);
    const int64_t* p = g.data_ptr<int64_t>();
    return {std::vector<int64_t>(p, p + axes), std::vector<int64_t>(p + axes, p + 2 * axes)};
  }

  void on_put(int source, const MessageHeader& h) {
    const auto [sizes, strides] = receive_geometry(source, h.args[2]);
    const auto value_type = static_cast<c10::ScalarType>(h.args[5]);
    const at::Tensor view = domain().view_at(rank_, static_cast<int>(h.args[0]), h.args[1], sizes, strides,
                                             static_cast<c10::ScalarType>(h.args[3]));
    ClockHeld arriving(domain().transport());
    if (h.args[4] == 0 && value_type == view.scalar_type() && view.is_contiguous()) {
      group_.receive_payload(source, view);  // a plain write: straight into the window
      return;
    }
    at::Tensor value = at::empty(sizes, at::TensorOptions().dtype(value_type));
    group_.receive_payload(source, value);
    sim::write_window(view, value, h.args[4] != 0);
  }

  void on_get(int source, const MessageHeader& h) {
    const auto [sizes, strides] = receive_geometry(source, h.args[2]);
    const at::Tensor view = domain().view_at(rank_, static_cast<int>(h.args[0]), h.args[1], sizes, strides,
                                             static_cast<c10::ScalarType>(h.args[3]));
    group_.post(source, MessageHeader{MessageKind::GetReply, {h.args[4]}}, {view.clone(at::MemoryFormat::Contiguous)});
  }

  void on_get_reply(int source, const MessageHeader& h) {
    PendingGet pending;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = gets_.find(h.args[0]);
      if (it == gets_.end()) throw GroupError("a reply to an unknown read from rank " + std::to_string(source));
      pending = std::move(it->second);
      gets_.erase(it);
    }
    at::Tensor data = at::empty(pending.out.sizes(), pending.out.options());
    {
      ClockHeld arriving(domain().transport());
      group_.receive_payload(source, data);
    }
    pending.out.copy_(data);
    pending.arrived.set_value();
  }

  static constexpr int64_t kSentInPlace = int64_t{1} << 20;  // bytes: a put this large is not copied

  GlooGroup& group_;
  const int rank_;
  const int host_;
  at::Tensor echo_;
  std::unique_ptr<sim::Program> program_;
  std::shared_ptr<sim::Device> device_;
  std::unique_ptr<sim::CommDomain> domain_;
  std::unique_ptr<sim::RankQueues> queue_;  // this rank's launches, in order
  std::unique_ptr<sim::TaskRecorder> recorder_;  // between Record and Tasks
  std::mutex mu_;
  std::map<int64_t, PendingData> data_;  // by launch id
  std::map<int64_t, PendingGet> gets_;   // by request
  std::map<int64_t, at::Tensor> kept_;   // regions of residents kept between launches, by key
  std::atomic<int64_t> next_request_{1};
  std::atomic<int64_t> running_{0};  // the launch on this rank's thread (its id), 0: none
  BufferPool buffers_;
};

}  // namespace

int serve_rank(GlooGroup& group, int rank) {
  Runtime runtime(group, rank);
  return runtime.serve();
}

}  // namespace pypto_golden::ranks
