// Large tensors of a host whose rank workers run on this machine, in memory those workers
// map instead of receiving a copy. A worker process holds its own copy of every host byte
// its launches read; for an L3 program's weights that doubles the run's memory on one
// machine, where the ranks in threads share them. So, with ranks in processes, CPU tensors
// of kSharedFrom bytes or more are allocated in memory files (memfd), and a worker on this
// machine maps the part a launch only reads, copy-on-write: no copy, no second footprint,
// and a write the analysis did not foresee stays the worker's.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>

namespace pypto_golden::ranks {

// Smaller allocations stay with torch's allocator: glibc maps fresh pages for blocks this
// large anyway, so only these change how they are backed.
constexpr int64_t kSharedFrom = int64_t{32} << 20;

// PYPTO_SIM_SHARE_HOST_MEMORY: whether local workers map the host's large tensors ("on",
// the default, or "off"). std::invalid_argument naming the variable for another value.
bool share_host_memory_wanted();

// Makes torch's CPU allocations of kSharedFrom bytes or more shareable from now on (once per
// process; later calls do nothing). The tensors allocated before stay as they are.
void share_large_host_tensors();

// Where bytes of this process live in a shareable allocation: the memory file
// /proc/<pid>/fd/<fd> at `offset`, for `bytes` bytes.
struct SharedBytes {
  int64_t pid = 0;
  int64_t fd = -1;
  int64_t offset = 0;
  int64_t bytes = 0;
};

// The place of [data, data + bytes) when it lies in one live shareable allocation.
std::optional<SharedBytes> shared_bytes_of(const void* data, int64_t bytes);

// The bytes at `at`, mapped privately into this process (on this machine): a uint8 tensor
// whose reads share the owner's pages and whose writes are this process's own. Throws
// std::runtime_error naming the file when it cannot be opened or mapped.
at::Tensor map_shared_bytes(const SharedBytes& at);

}  // namespace pypto_golden::ranks
