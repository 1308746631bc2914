#include "run/memory_budget.h"

#include "run/machine_memory.h"
#include "run/run_errors.h"
#include "run/tensor_factory.h"
#include "tensor/untouched_zeros.h"

#include <c10/core/ScalarType.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <stdexcept>

namespace pypto_golden {
namespace {

// Bytes of one copy of the spec tensors: the In ones, and the Out / InOut ones.
struct SpecBytes {
  uint64_t inputs = 0;
  uint64_t outputs = 0;
};

SpecBytes spec_tensor_bytes(const std::vector<NativeSpec>& specs) {
  SpecBytes total;
  for (const auto& s : specs) {
    if (!s.is_tensor) continue;
    uint64_t n = c10::elementSize(s.dtype);
    for (int64_t d : s.shape) n *= static_cast<uint64_t>(d < 0 ? 0 : d);
    if (s.direction != Direction::In) total.outputs += n;
    // Not the script's own tensor, held already, nor zeros, which take memory only where
    // written (and an In tensor is written only by the golden's or the device's copy).
    else if (!init_tensor_shared(s) && !(zero_init(s) && n >= kUntouchedZerosFrom)) total.inputs += n;
  }
  return total;
}

// Memory a run may use, and which bound applied; nullopt when neither is known.
struct MemoryBudget {
  uint64_t bytes = 0;
  std::string source;
};

std::optional<MemoryBudget> memory_budget() {
  std::optional<MemoryBudget> budget;
  if (const MachineMemory m = machine_memory(); m.total) budget = MemoryBudget{m.available, m.source};
  if (const char* raw = std::getenv("PYPTO_GOLDEN_MEMORY_LIMIT")) {
    const uint64_t limit = parse_byte_count(raw, "PYPTO_GOLDEN_MEMORY_LIMIT");
    if (!budget || limit < budget->bytes) budget = MemoryBudget{limit, "PYPTO_GOLDEN_MEMORY_LIMIT"};
  }
  return budget;
}

}  // namespace

void rethrow_if_out_of_memory(const std::string& what, const std::string& spec, const std::string& doing) {
  if (what.find("can't allocate memory") == std::string::npos && what.find("MemoryError") == std::string::npos &&
      what.find("std::bad_alloc") == std::string::npos)
    return;
  std::string amount = "more memory than there is";
  const std::string marker = "you tried to allocate ";
  const size_t at = what.find(marker);
  if (at != std::string::npos) amount = bytes_text(std::strtoull(what.c_str() + at + marker.size(), nullptr, 10));
  throw RunFailure("not enough memory for this run: TensorSpec '" + spec + "': " + doing + " tried to allocate " +
                   amount + " and the allocator refused; the run was not started");
}

void check_memory_budget(const std::vector<NativeSpec>& specs) {
  const std::optional<MemoryBudget> budget = memory_budget();
  if (!budget) return;
  // The golden and the device share an input's host bytes until one writes them; an output
  // exists as the kernel's result and as the golden's (sim/dispatch.h, run/golden_stage.h).
  const SpecBytes tensors = spec_tensor_bytes(specs);
  const uint64_t needed = tensors.inputs + 2 * tensors.outputs;
  if (needed <= budget->bytes) return;
  throw RunFailure("not enough memory for this run: its tensors need at least " + bytes_text(needed) + " (" +
                   bytes_text(tensors.inputs) + " of In tensors, held once, and " + bytes_text(tensors.outputs) +
                   " of Out / InOut tensors, held twice: the kernel's result and the golden's) but " +
                   bytes_text(budget->bytes) + " is available (" + budget->source + "); the run was not started");
}

}  // namespace pypto_golden
