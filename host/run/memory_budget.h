// Whether a run's tensors fit in memory, checked before any of them is allocated: a run too
// big for the machine ends with one message (needed vs available bytes), not with the
// kernel's OOM killer.
#pragma once

#include "run/native_spec.h"
#include "tensor/bytes_text.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pypto_golden {

// Throws RunFailure when the run's tensors cannot fit: each In tensor is held at least once
// (the golden and the device share its host bytes until one writes them; the script's own
// tensor shared copy-on-write, and zeros made as untouched pages, not at all) and each Out /
// InOut twice (the kernel's result and the golden's), against the memory left
// (run/machine_memory.h: MemAvailable, or the memory cgroup's limit when tighter) capped by
// PYPTO_GOLDEN_MEMORY_LIMIT (bytes, or with a K/M/G/T suffix, powers of 1024). Throws
// std::invalid_argument for a malformed limit.
void check_memory_budget(const std::vector<NativeSpec>& specs);

// When `what` is an allocator's refusal ("...can't allocate memory: you tried to allocate
// N bytes..."), throws the RunFailure "not enough memory for this run: TensorSpec 'x':
// <doing> tried to allocate 120.1 GiB and the allocator refused; the run was not started";
// otherwise returns.
void rethrow_if_out_of_memory(const std::string& what, const std::string& spec, const std::string& doing);

}  // namespace pypto_golden
