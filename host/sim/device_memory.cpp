#include "sim/device_memory.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <new>

namespace pypto_golden::sim {
namespace {
constexpr size_t kAlignment = 64;
constexpr size_t kMaxCachedBytes = size_t(4) << 30;  // keep at most 4 GiB of idle blocks
}  // namespace

DeviceMemory::~DeviceMemory() {
  for (auto& kv : free_) std::free(kv.second);
}

void* DeviceMemory::take(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    if (it != free_.end()) {
      void* block = it->second;
      free_.erase(it);
      cached_bytes_ -= bytes;
      return block;
    }
  }
  void* block = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  if (!block) throw std::bad_alloc();
  return block;
}

void DeviceMemory::give_back(void* block, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_bytes_ + bytes > kMaxCachedBytes) {
    std::free(block);
    return;
  }
  free_.emplace(bytes, block);
  cached_bytes_ += bytes;
}

size_t DeviceMemory::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_bytes_;
}

at::Tensor DeviceMemory::allocate(const std::shared_ptr<DeviceMemory>& self, at::IntArrayRef shape,
                                  c10::ScalarType dtype) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  const size_t bytes = std::max<size_t>(1, static_cast<size_t>(numel) * c10::elementSize(dtype));
  void* block = self->take(bytes);
  std::shared_ptr<DeviceMemory> owner = self;
  return at::from_blob(
      block, shape, [owner, bytes](void* p) { owner->give_back(p, bytes); },
      at::TensorOptions().dtype(dtype));
}

}  // namespace pypto_golden::sim
