#include "sim/chunked_list.h"

#include <sys/mman.h>

#include <map>
#include <mutex>
#include <new>

namespace pypto_golden::sim {
namespace {

// Blocks a list gave back, kept for the next list (up to kPoolLimit bytes): fresh pages cost
// a fault each on first touch, several microseconds on a virtual machine, and a recording
// run touches ~100 bytes a task. So a process's second recording run pays none of that.
constexpr size_t kPoolLimit = size_t{256} << 20;

struct BlockPool {
  std::mutex mu;
  std::map<size_t, std::vector<void*>> free_blocks;  // by size
  size_t bytes = 0;
};

BlockPool& pool() {
  static BlockPool* p = new BlockPool;  // never destroyed: lists may outlive static destruction
  return *p;
}

}  // namespace

void* map_block(size_t bytes) {
  {
    BlockPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.free_blocks.find(bytes);
    if (it != p.free_blocks.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      p.bytes -= bytes;
      return block;
    }
  }
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
  return block;
}

void unmap_block(void* block, size_t bytes) {
  {
    BlockPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.bytes + bytes <= kPoolLimit) {
      p.free_blocks[bytes].push_back(block);
      p.bytes += bytes;
      return;
    }
  }
  munmap(block, bytes);
}

}  // namespace pypto_golden::sim
