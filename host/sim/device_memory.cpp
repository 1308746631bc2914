#include "sim/device_memory.h"

#include "sim/hot_thread_local.h"

#include <ATen/ATen.h>
#include <c10/core/Storage.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>
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

struct alignas(64) DeviceMemory::Shard {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<BlockHeader*>> free;
  size_t cached_bytes = 0;
  // The blocks handed out less those returned by the threads of this shard (one thread may
  // allocate a tile and another free it: only the sum over the shards means anything).
  std::atomic<int64_t> live_bytes{0};
};

namespace {
constexpr size_t kAlignment = 64;
// Blocks of at least this many bytes (whole tensors, the inputs and outputs of a dispatch)
// share shard 0, which keeps up to 4 GiB of them for the next dispatch. Smaller blocks are
// the tiles the workers make and drop by the thousand: each thread frees them into its own
// shard, which keeps up to 64 MiB.
constexpr size_t kLargeBlock = size_t(1) << 20;
constexpr size_t kMaxCachedLarge = size_t(4) << 30;
constexpr size_t kMaxCachedSmall = size_t(64) << 20;

void* payload(void* header) { return static_cast<char*>(header) + kAlignment; }

// This thread's small-block shard, 1 .. shards - 1: threads are numbered as they first
// come, so a pool's workers get shards of their own.
int thread_shard(int shards) {
  static std::atomic<int> next{0};
  PYPTO_HOT_THREAD_LOCAL int index = -1;
  if (index < 0) index = next.fetch_add(1, std::memory_order_relaxed);
  return 1 + index % (shards - 1);
}
}  // namespace

DeviceMemory::DeviceMemory() : shards_(new Shard[kShards]) {}

DeviceMemory::~DeviceMemory() {
  for (int k = 0; k < kShards; ++k)
    for (auto& bucket : shards_[k].free)
      for (BlockHeader* h : bucket.second) {
        h->~BlockHeader();
        std::free(h);
      }
}

DeviceMemory::BlockHeader* DeviceMemory::take(size_t bytes) {
  static_assert(sizeof(BlockHeader) <= kAlignment, "the block header must fit one alignment unit");
  const auto pop = [bytes](Shard& shard) -> BlockHeader* {
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.free.find(bytes);
    if (it == shard.free.end() || it->second.empty()) return nullptr;
    BlockHeader* h = it->second.back();
    it->second.pop_back();
    shard.cached_bytes -= bytes;
    return h;
  };
  if (bytes >= kLargeBlock) {
    if (BlockHeader* h = pop(shards_[0])) return h;
  } else {
    // This thread's shard first; then the others, which hold the tiles this thread made
    // and another freed (an orchestration's tiles, freed by the workers that used them).
    const int own = thread_shard(kShards);
    for (int k = 0; k < kShards - 1; ++k)
      if (BlockHeader* h = pop(shards_[1 + (own - 1 + k) % (kShards - 1)])) return h;
  }
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* raw = std::aligned_alloc(kAlignment, kAlignment + rounded);
  if (!raw) throw std::bad_alloc();
  return new (raw) BlockHeader{bytes, nullptr};
}

void DeviceMemory::give_back(BlockHeader* h) {
  const int own = thread_shard(kShards);
  shards_[own].live_bytes.fetch_sub(static_cast<int64_t>(h->bytes), std::memory_order_relaxed);
  const bool large = h->bytes >= kLargeBlock;
  Shard& shard = shards_[large ? 0 : own];
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    if (shard.cached_bytes + h->bytes <= (large ? kMaxCachedLarge : kMaxCachedSmall)) {
      shard.free[h->bytes].push_back(h);
      shard.cached_bytes += h->bytes;
      return;
    }
  }
  h->~BlockHeader();
  std::free(h);
}

void DeviceMemory::release(void* header) {
  auto* h = static_cast<BlockHeader*>(header);
  // Keep the pool alive until the block is back in it; dropping the last reference
  // afterwards destroys the pool, which frees the cached block with the rest.
  std::shared_ptr<DeviceMemory> owner = std::move(h->owner);
  owner->give_back(h);
}

size_t DeviceMemory::cached_bytes() const {
  size_t sum = 0;
  for (int k = 0; k < kShards; ++k) {
    std::lock_guard<std::mutex> lock(shards_[k].mu);
    sum += shards_[k].cached_bytes;
  }
  return sum;
}

int64_t DeviceMemory::live_bytes() const {
  int64_t sum = 0;
  for (int k = 0; k < kShards; ++k) sum += shards_[k].live_bytes.load(std::memory_order_relaxed);
  return sum;
}

at::Tensor DeviceMemory::allocate(const std::shared_ptr<DeviceMemory>& self, at::IntArrayRef shape,
                                  c10::ScalarType dtype) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  const size_t bytes = std::max<size_t>(1, static_cast<size_t>(numel) * c10::elementSize(dtype));
  BlockHeader* h = self->take(bytes);
  h->owner = self;
  self->shards_[thread_shard(kShards)].live_bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  c10::DataPtr data(payload(h), h, &DeviceMemory::release, c10::Device(c10::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), bytes, std::move(data), nullptr, false);
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU),
                                                          caffe2::TypeMeta::fromScalarType(dtype));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(shape);
  return t;
}

}  // namespace pypto_golden::sim
