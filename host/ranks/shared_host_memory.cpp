#include "ranks/shared_host_memory.h"

#include "tensor/untouched_zeros.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

namespace pypto_golden::ranks {
namespace {

struct Block {
  int fd = -1;
  size_t bytes = 0;
};

std::mutex blocks_mu;
std::map<uintptr_t, Block> blocks;  // the live shareable allocations, by address
c10::Allocator* previous = nullptr;  // torch's allocator, for everything smaller

// Frees either kind: what raw_deleter() must do, since raw allocations of both go through it.
void free_any(void* p) {
  Block block;
  {
    std::lock_guard<std::mutex> lock(blocks_mu);
    auto it = blocks.find(reinterpret_cast<uintptr_t>(p));
    if (it == blocks.end()) {
      previous->raw_deleter()(p);
      return;
    }
    block = it->second;
    blocks.erase(it);
  }
  ::munmap(p, block.bytes);
  ::close(block.fd);
}

// A fresh memory file of n bytes (it reads as zeros), mapped; empty below kSharedFrom or
// where there are no memory files (a sandbox).
c10::DataPtr memory_file(size_t n) {
  if (n < static_cast<size_t>(kSharedFrom)) return {};
  const int fd = ::memfd_create("pypto-golden-host", MFD_CLOEXEC);
  if (fd < 0) return {};
  void* p = MAP_FAILED;
  if (::ftruncate(fd, static_cast<off_t>(n)) == 0) p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    ::close(fd);
    return {};
  }
  {
    std::lock_guard<std::mutex> lock(blocks_mu);
    blocks[reinterpret_cast<uintptr_t>(p)] = Block{fd, n};
  }
  // The data pointer is its own context, as torch's are, so lazy (copy-on-write) clones
  // of these tensors work as of any other.
  return {p, p, &free_any, c10::Device(c10::DeviceType::CPU)};
}

class SharedLargeAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    if (c10::DataPtr file = memory_file(n)) return file;
    return previous->allocate(n);  // small, or no memory files here: torch's own memory
  }

  c10::DeleterFnPtr raw_deleter() const override { return &free_any; }

  void copy_data(void* dest, const void* src, size_t count) const override { default_copy_data(dest, src, count); }
};

}  // namespace

bool share_host_memory_wanted() {
  const char* raw = std::getenv("PYPTO_SIM_SHARE_HOST_MEMORY");
  const std::string v = raw == nullptr ? "" : raw;
  if (v.empty() || v == "on" || v == "1") return true;
  if (v == "off" || v == "0") return false;
  throw std::invalid_argument("PYPTO_SIM_SHARE_HOST_MEMORY must be 'on' or 'off', got '" + v + "'");
}

void share_large_host_tensors() {
  static std::once_flag once;
  std::call_once(once, [] {
    static SharedLargeAllocator allocator;
    previous = c10::GetCPUAllocator();
    // Above torch's own priority (0), so a later default registration cannot undo it.
    c10::SetCPUAllocator(&allocator, 1);
    // Zero tensors of that size too: a fresh file already reads as zeros.
    set_fresh_pages_source(&memory_file);
  });
}

std::optional<SharedBytes> shared_bytes_of(const void* data, int64_t bytes) {
  const auto p = reinterpret_cast<uintptr_t>(data);
  std::lock_guard<std::mutex> lock(blocks_mu);
  auto it = blocks.upper_bound(p);
  if (it == blocks.begin() || bytes <= 0) return std::nullopt;
  --it;
  const uintptr_t base = it->first;
  if (p + static_cast<uint64_t>(bytes) > base + it->second.bytes) return std::nullopt;
  return SharedBytes{static_cast<int64_t>(::getpid()), it->second.fd, static_cast<int64_t>(p - base), bytes};
}

at::Tensor map_shared_bytes(const SharedBytes& at) {
  const std::string path = "/proc/" + std::to_string(at.pid) + "/fd/" + std::to_string(at.fd);
  // A private mapping needs only read access to the file, and keeps it after the close.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("cannot open the host's memory " + path + ": " + std::strerror(errno) +
                             " (PYPTO_SIM_SHARE_HOST_MEMORY=off sends its bytes instead)");
  const auto page = static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
  const int64_t start = at.offset - at.offset % page;
  const auto length = static_cast<size_t>(at.offset - start + at.bytes);
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, static_cast<off_t>(start));
  const int error = errno;
  ::close(fd);
  if (base == MAP_FAILED)
    throw std::runtime_error("cannot map " + std::to_string(at.bytes) + " bytes of the host's memory " + path +
                             " at offset " + std::to_string(at.offset) + ": " + std::strerror(error));
  return at::from_blob(static_cast<uint8_t*>(base) + (at.offset - start), {at.bytes},
                       [base, length](void*) { ::munmap(base, length); }, at::TensorOptions().dtype(at::kByte));
}

}  // namespace pypto_golden::ranks
