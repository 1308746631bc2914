#include "sim/device_memory.h"

#include <ATen/ATen.h>
#include <c10/core/Storage.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace pypto_golden::sim {

// Lives in front of each block's payload (one alignment unit, so the payload stays aligned).
// It is the DataPtr's context: freeing a tensor's storage needs no other bookkeeping, and
// creating one needs no heap-allocated deleter (unlike at::from_blob with a lambda).
struct DeviceMemory::BlockHeader {
  size_t bytes;
  std::shared_ptr<DeviceMemory> owner;  // set while the block is in use, empty while cached
};

namespace {
constexpr size_t kAlignment = 64;
constexpr size_t kMaxCachedBytes = size_t(4) << 30;  // keep at most 4 GiB of idle blocks

void* payload(void* header) { return static_cast<char*>(header) + kAlignment; }
}  // namespace

DeviceMemory::~DeviceMemory() {
  for (auto& bucket : free_)
    for (BlockHeader* h : bucket.second) {
      h->~BlockHeader();
      std::free(h);
    }
}

DeviceMemory::BlockHeader* DeviceMemory::take(size_t bytes) {
  static_assert(sizeof(BlockHeader) <= kAlignment, "the block header must fit one alignment unit");
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      BlockHeader* h = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= bytes;
      return h;
    }
  }
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* raw = std::aligned_alloc(kAlignment, kAlignment + rounded);
  if (!raw) throw std::bad_alloc();
  return new (raw) BlockHeader{bytes, nullptr};
}

void DeviceMemory::give_back(BlockHeader* h) {
  live_bytes_.fetch_sub(static_cast<int64_t>(h->bytes), std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_bytes_ + h->bytes > kMaxCachedBytes) {
    h->~BlockHeader();
    std::free(h);
    return;
  }
  free_[h->bytes].push_back(h);
  cached_bytes_ += h->bytes;
}

void DeviceMemory::release(void* header) {
  auto* h = static_cast<BlockHeader*>(header);
  // Keep the pool alive until the block is back in it; dropping the last reference
  // afterwards destroys the pool, which frees the cached block with the rest.
  std::shared_ptr<DeviceMemory> owner = std::move(h->owner);
  owner->give_back(h);
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
  BlockHeader* h = self->take(bytes);
  h->owner = self;
  self->live_bytes_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  c10::DataPtr data(payload(h), h, &DeviceMemory::release, c10::Device(c10::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), bytes, std::move(data), nullptr, false);
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU),
                                                          caffe2::TypeMeta::fromScalarType(dtype));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(shape);
  return t;
}

}  // namespace pypto_golden::sim
