// Whether a run's tensors fit in memory, checked before any of them is allocated: a run too
// big for the machine ends with one message (needed vs available bytes), not with the
// kernel's OOM killer.
#pragma once

#include "run/native_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pypto_golden {

// Bytes of the spec tensors (one copy of each).
uint64_t spec_tensor_bytes(const std::vector<NativeSpec>& specs);

// Memory a run may use: /proc/meminfo's MemAvailable, capped by PYPTO_GOLDEN_MEMORY_LIMIT
// (bytes, or with a K/M/G/T suffix, powers of 1024); `source` says which bound applied.
// nullopt when neither is known. Throws std::invalid_argument for a malformed limit.
struct MemoryBudget {
  uint64_t bytes = 0;
  std::string source;
};
std::optional<MemoryBudget> memory_budget();

// "12.5 GiB", "640.0 MiB", "3.0 KiB", "512 B".
std::string bytes_text(uint64_t bytes);

// Throws RunFailure when the run's tensors cannot fit: each spec tensor is held at least
// three times at once (the host data, the golden's clone, the device copy).
void check_memory_budget(const std::vector<NativeSpec>& specs);

}  // namespace pypto_golden
