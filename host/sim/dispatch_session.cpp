#include "sim/dispatch_session.h"

#include "sim/comm/comm_domain.h"
#include "sim/device_registry.h"

#include <algorithm>

namespace pypto_golden::sim {

// The ranks of an L3 program: their devices (locked like a single device, in one global
// order) bound to the domain that connects them.
class RankDevices {
 public:
  RankDevices(const Program& program, Device& host) {
    for (int id : program.devices) ranks_.push_back(simulated_device(id));
    std::vector<Device*> all{&host};
    for (auto& d : ranks_) all.push_back(d.get());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    for (Device* d : all) locks_.emplace_back(d->dispatch_mutex());
    std::vector<Device*> devices;
    for (auto& d : ranks_) devices.push_back(d.get());
    if (ranks_in_processes()) {
      // The ranks' devices are in worker processes; this one holds rank 0's copy of the
      // windows, of which the host program takes its views.
      std::vector<bool> held(devices.size(), false);
      held[0] = true;
      domain_ = std::make_unique<CommDomain>(program.devices, devices, wait_timeout_from_env(), held);
      domain_->set_remote(make_remote_ranks(program, *domain_));
    } else {
      domain_ = std::make_unique<CommDomain>(program.devices, devices, wait_timeout_from_env());
    }
    for (size_t r = 0; r < ranks_.size(); ++r) ranks_[r]->bind_rank(domain_.get(), static_cast<int>(r));
    if (std::find(devices.begin(), devices.end(), &host) == devices.end()) {
      host.bind_rank(domain_.get(), -1);
      host_ = &host;
    }
  }
  ~RankDevices() {
    domain_.reset();  // every rank has stopped before the devices are unbound
    for (auto& d : ranks_) d->bind_rank(nullptr, -1);
    if (host_ != nullptr) host_->bind_rank(nullptr, -1);
  }
  CommDomain& domain() { return *domain_; }

 private:
  std::vector<std::shared_ptr<Device>> ranks_;
  std::vector<std::unique_lock<std::mutex>> locks_;
  std::unique_ptr<CommDomain> domain_;
  Device* host_ = nullptr;
};

DispatchSession::DispatchSession(const Program& program, Device& device)
    : program_(program), device_(device), owner_(device.dispatch_mutex(), std::defer_lock),
      resident_(program.entry().params.size()) {
  if (program.devices.empty()) owner_.lock();
  else ranks_ = std::make_unique<RankDevices>(program, device);
}

DispatchSession::~DispatchSession() = default;

CommDomain* DispatchSession::domain() { return ranks_ ? &ranks_->domain() : nullptr; }

at::Tensor& DispatchSession::resident(size_t k) { return resident_.at(k); }

void DispatchSession::begin_dispatch() {
  ++dispatches_;
  if (ranks_) ranks_->domain().begin_dispatch();
}

}  // namespace pypto_golden::sim
