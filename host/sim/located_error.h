// The one place a failure inside a kernel gets its source position: "file:line: what (r=3)".
#pragma once

#include "sim/nodes.h"

namespace pypto_golden::sim {

// Called inside a catch block: rethrows the exception being handled as a SimError located
// at `line` of the frame's function, with the loop indices in force. A SimError (already
// located) and an interrupt pass through unchanged.
[[noreturn]] void rethrow_located(const Frame& frame, int line);

// Runs `fn` and locates what it throws at `line`; line 0 (no position recorded, as in a
// folded temporary's enclosing call) runs it bare, leaving the error to an outer position.
template <class Fn>
decltype(auto) run_at_line(const Frame& frame, int line, Fn&& fn) {
  if (line == 0) return fn();
  try {
    return fn();
  } catch (const std::exception&) {
    rethrow_located(frame, line);
  }
}

}  // namespace pypto_golden::sim
