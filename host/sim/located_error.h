// The one place a failure inside a kernel gets its source position: "file:line: what (r=3)".
#pragma once

#include "sim/nodes.h"

namespace pypto_golden::sim {

// Called inside a catch block: rethrows the exception being handled as a SimError located
// at `line` of the frame's function, with the loop indices in force. A SimError (already
// located) and an interrupt pass through unchanged.
[[noreturn]] void rethrow_located(const Frame& frame, int line);

}  // namespace pypto_golden::sim
