// TensorSpec(resident=...) against the compiled program: residents exist only for L3
// programs, and each names workers the program has.
#pragma once

#include "run/native_spec.h"

#include <vector>

namespace pypto_golden {

bool has_residents(const std::vector<NativeSpec>& specs);

// `devices`: the program's device ids, one worker (rank) each; empty for a single-device
// program. A broken rule is a RunFailure naming the spec, the rule and what it found.
void check_residents(const std::vector<NativeSpec>& specs, const std::vector<int>& devices);

}  // namespace pypto_golden
