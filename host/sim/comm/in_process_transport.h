// WindowTransport with every rank in this process: each buffer is one zeroed block per rank,
// signals are guarded by one mutex and condition variable (a notify publishes the data
// writes before it to whoever its wait wakes).
#pragma once

#include "sim/comm/window_transport.h"

#include <ATen/core/Tensor.h>

#include <condition_variable>
#include <mutex>
#include <vector>

namespace pypto_golden::sim {

class InProcessTransport : public WindowTransport {
 public:
  explicit InProcessTransport(int world_size) : world_size_(world_size) {}

  int world_size() const override { return world_size_; }
  int allocate(int64_t nbytes) override;
  int buffer_count() const override;
  int64_t buffer_bytes(int buffer) const override;
  uint8_t* map(int rank, int buffer) override;
  void notify(int32_t* slot, int32_t value, NotifyOp op) override;
  WaitResult wait(const int32_t* slot, int32_t expected, WaitCmp cmp, std::chrono::milliseconds timeout) override;
  void abort() override;

 private:
  int world_size_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool aborted_ = false;
  std::vector<std::vector<at::Tensor>> buffers_;  // [buffer][rank], uint8
};

}  // namespace pypto_golden::sim
