// Device memory of one simulated device: a caching pool of aligned blocks. Freed blocks are
// kept for reuse, so repeated dispatches (benchmark rounds) do not page-fault fresh memory.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

namespace pypto_golden::sim {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // A contiguous, uninitialised tensor in device memory. The block returns to the pool when
  // the last tensor using it is gone (the pool outlives them through a shared_ptr).
  static at::Tensor allocate(const std::shared_ptr<DeviceMemory>& self, at::IntArrayRef shape,
                             c10::ScalarType dtype);

  size_t cached_bytes() const;

 private:
  void* take(size_t bytes);
  void give_back(void* block, size_t bytes);

  mutable std::mutex mu_;
  std::multimap<size_t, void*> free_;
  size_t cached_bytes_ = 0;
};

}  // namespace pypto_golden::sim
