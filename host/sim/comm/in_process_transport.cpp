#include "sim/comm/in_process_transport.h"

#include "sim/interrupt.h"

#include <ATen/ATen.h>

namespace pypto_golden::sim {

InProcessTransport::InProcessTransport(int world_size, std::vector<bool> held)
    : world_size_(world_size), held_(held.empty() ? std::vector<bool>(static_cast<size_t>(world_size), true) : held) {}

int InProcessTransport::allocate(int64_t nbytes) {
  std::vector<at::Tensor> copies(static_cast<size_t>(world_size_));
  for (int r = 0; r < world_size_; ++r)
    if (holds(r)) copies[static_cast<size_t>(r)] = at::zeros({nbytes}, at::TensorOptions().dtype(at::kByte));
  std::lock_guard<std::mutex> lock(mu_);
  buffers_.push_back(std::move(copies));
  bytes_.push_back(nbytes);
  return static_cast<int>(buffers_.size()) - 1;
}

int InProcessTransport::buffer_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(buffers_.size());
}

int64_t InProcessTransport::buffer_bytes(int buffer) const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_.at(static_cast<size_t>(buffer));
}

uint8_t* InProcessTransport::map(int rank, int buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  const at::Tensor& copy = buffers_.at(static_cast<size_t>(buffer)).at(static_cast<size_t>(rank));
  return copy.defined() ? copy.data_ptr<uint8_t>() : nullptr;
}

void InProcessTransport::notify(int32_t* slot, int32_t value, NotifyOp op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (op == NotifyOp::AtomicAdd) *slot += value;
    else *slot = value;
  }
  changed_.notify_all();
}

WaitResult InProcessTransport::wait(const int32_t* slot, int32_t expected, WaitCmp cmp,
                                    std::chrono::milliseconds timeout) {
  auto holds = [&] { return cmp == WaitCmp::Eq ? *slot == expected : *slot >= expected; };
  std::unique_lock<std::mutex> lock(mu_);
  const auto start = std::chrono::steady_clock::now();
  const auto held_at_start = held_total(start);
  while (!holds() && !aborted_) {
    const auto now = std::chrono::steady_clock::now();
    // The timeout runs only while the clock is not held.
    const auto spent = (now - start) - (held_total(now) - held_at_start);
    if (spent >= timeout + credit_) break;
    // Short slices: Ctrl-C is noticed while a rank waits.
    changed_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(timeout + credit_ - spent,
                                                                          std::chrono::milliseconds(50)));
    if (interrupt_requested()) break;
  }
  WaitResult r;
  r.satisfied = holds();
  r.aborted = !r.satisfied && aborted_;
  r.found = *slot;
  return r;
}

void InProcessTransport::hold_clock(int delta) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (clock_holds_ == 0 && delta > 0) held_since_ = now;
    clock_holds_ += delta;
    if (clock_holds_ == 0 && delta < 0) held_total_ += now - held_since_;
  }
  changed_.notify_all();  // waits take up their timeouts again
}

void InProcessTransport::set_wait_credit(std::chrono::milliseconds credit) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    credit_ = credit;
  }
  changed_.notify_all();
}

std::chrono::steady_clock::duration InProcessTransport::held_total(std::chrono::steady_clock::time_point now) const {
  return held_total_ + (clock_holds_ > 0 ? now - held_since_ : std::chrono::steady_clock::duration::zero());
}

void InProcessTransport::abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
  }
  changed_.notify_all();
}

}  // namespace pypto_golden::sim
