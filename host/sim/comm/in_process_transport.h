// WindowTransport with the ranks' windows in this process: each buffer is one zeroed block
// per rank held here (every rank, or the ones a process of several holds), signals are
// guarded by one mutex and condition variable (a notify publishes the data writes before it
// to whoever its wait wakes).
#pragma once

#include "sim/comm/window_transport.h"

#include <ATen/core/Tensor.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace pypto_golden::sim {

class InProcessTransport : public WindowTransport {
 public:
  // `held`: the ranks whose copies are here (empty: all).
  explicit InProcessTransport(int world_size, std::vector<bool> held = {});

  int world_size() const override { return world_size_; }
  int allocate(int64_t nbytes) override;
  int buffer_count() const override;
  int64_t buffer_bytes(int buffer) const override;
  // Null for a rank whose copy is not here.
  uint8_t* map(int rank, int buffer) override;
  bool holds(int rank) const override { return held_.at(static_cast<size_t>(rank)); }
  void notify(int32_t* slot, int32_t value, NotifyOp op) override;
  WaitResult wait(const int32_t* slot, int32_t expected, WaitCmp cmp, std::chrono::milliseconds timeout) override;
  void abort() override;
  void hold_clock(int delta) override;
  void set_wait_credit(std::chrono::milliseconds credit) override;

 private:
  int world_size_;
  std::vector<bool> held_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool aborted_ = false;
  // hold_clock: how long the clock has been held in all, and since when it is held now.
  int clock_holds_ = 0;
  std::chrono::milliseconds credit_{0};
  std::chrono::steady_clock::duration held_total_{};
  std::chrono::steady_clock::time_point held_since_;
  std::chrono::steady_clock::duration held_total(std::chrono::steady_clock::time_point now) const;  // mu_ held
  std::vector<std::vector<at::Tensor>> buffers_;  // [buffer][rank], uint8 (undefined: not held)
  std::vector<int64_t> bytes_;                     // [buffer]
};

}  // namespace pypto_golden::sim
