#include "tensor/untouched_zeros.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/Storage.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <new>

namespace pypto_golden {
namespace {

std::atomic<FreshPagesSource> g_source{nullptr};

// Where a mapping starts and how long it is, just before the data it holds (the data is
// its own DataPtr context, which torch's copy-on-write clone requires).
struct Mapping {
  void* base;
  size_t length;
};

void unmap(void* data) {
  const Mapping m = *reinterpret_cast<const Mapping*>(static_cast<char*>(data) - sizeof(Mapping));
  ::munmap(m.base, m.length);
}

// `bytes` of fresh anonymous memory, page-aligned, its Mapping in the page before the data.
c10::DataPtr map_fresh(size_t bytes) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t length = page + bytes;
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  char* data = static_cast<char*>(base) + page;
  new (data - sizeof(Mapping)) Mapping{base, length};
  return {data, data, &unmap, c10::Device(c10::kCPU)};
}

}  // namespace

at::Tensor untouched_zeros(at::IntArrayRef shape, at::ScalarType dtype) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  const size_t bytes = static_cast<size_t>(numel) * c10::elementSize(dtype);
  const auto opts = at::TensorOptions().dtype(dtype);
  if (bytes < kUntouchedZerosFrom) return at::zeros(shape, opts);
  c10::DataPtr ptr;
  if (const FreshPagesSource source = g_source.load()) ptr = source(bytes);
  if (!ptr) ptr = map_fresh(bytes);
  // Resizable like at::zeros' storage: the CPU allocator makes a resized one, and the copy
  // when a copy-on-write clone of this storage is written.
  c10::Storage storage(c10::Storage::use_byte_size_t(), bytes, std::move(ptr), c10::GetCPUAllocator(), true);
  return at::empty({0}, opts).set_(std::move(storage), 0, shape);
}

FreshPagesSource set_fresh_pages_source(FreshPagesSource source) { return g_source.exchange(source); }

bool is_untouched_zeros_storage(const at::Tensor& t) {
  return t.has_storage() && t.storage().data_ptr().get_deleter() == &unmap;
}

}  // namespace pypto_golden
