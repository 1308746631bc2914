// Device memory of one simulated device: a caching pool of aligned blocks. Freed blocks are
// kept for reuse, so repeated dispatches (benchmark rounds) do not page-fault fresh memory.
#pragma once

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pypto_golden::sim {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // A contiguous, uninitialised tensor in device memory. The block returns to the pool when
  // the last tensor using it is gone (each live block holds the pool through a shared_ptr).
  static at::Tensor allocate(const std::shared_ptr<DeviceMemory>& self, at::IntArrayRef shape,
                             c10::ScalarType dtype);

  size_t cached_bytes() const;
  // Bytes of the blocks in use (tensors alive), for the trace's memory counter: a relaxed
  // read, cheap enough to take at every task's start and end.
  int64_t live_bytes() const { return live_bytes_.load(std::memory_order_relaxed); }

 private:
  struct BlockHeader;
  static void release(void* header);
  BlockHeader* take(size_t bytes);
  void give_back(BlockHeader* block);

  mutable std::mutex mu_;
  // Idle blocks by payload size. Kernels allocate the same few sizes over and over (one per
  // op per iteration), so an exact-size bucket is a vector pop, with no allocation.
  std::unordered_map<size_t, std::vector<BlockHeader*>> free_;
  size_t cached_bytes_ = 0;
  std::atomic<int64_t> live_bytes_{0};
};

}  // namespace pypto_golden::sim
