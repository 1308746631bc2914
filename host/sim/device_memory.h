// Device memory of one simulated device: a caching pool of aligned blocks. Freed blocks are
// kept for reuse, so repeated dispatches (benchmark rounds) do not page-fault fresh memory.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace pypto_golden::sim {

class DeviceMemory {
 public:
  DeviceMemory();
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // A contiguous, uninitialised tensor in device memory. The block returns to the pool when
  // the last tensor using it is gone (each live block holds the pool through a shared_ptr).
  static at::Tensor allocate(const std::shared_ptr<DeviceMemory>& self, at::IntArrayRef shape,
                             c10::ScalarType dtype);

  size_t cached_bytes() const;
  // Bytes of the blocks in use (tensors alive), for the trace's memory counter: relaxed
  // reads, cheap enough to take at every task's start and end.
  int64_t live_bytes() const;

 private:
  struct BlockHeader;
  struct Shard;
  static void release(void* header);
  BlockHeader* take(size_t bytes);
  void give_back(BlockHeader* block);

  // Idle blocks by payload size, in shards. Kernels allocate the same few sizes over and
  // over (one per op per iteration), so an exact-size bucket is a vector pop. Tiles go to
  // the shard of the thread that frees them, so the workers, which make and drop tiles all
  // the time, do not contend for one lock; large blocks share shard 0 (see the .cpp).
  static constexpr int kShards = 8;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace pypto_golden::sim
