// The four PyPTO platforms: which exist, and which this machine can dispatch on.
#pragma once

#include <string>

namespace pypto_golden {

// ValueError (Python's) naming the four platforms when `platform` is none of them.
void require_known_platform(const std::string& platform);

// DeviceUnavailableError for a2a3 / a5 (they need an Ascend NPU runtime), naming the
// simulator platform to use instead; a2a3sim and a5sim pass.
void require_simulator(const std::string& platform);

// The platform a dispatch runs on: `platform` itself, or for a2a3 / a5 their simulator
// when PYPTO_GOLDEN_SIMULATE is on (pypto-golden --simulate), so a script written for
// the hardware runs unmodified on a machine without an NPU. A value of the variable other
// than 1/0 (true/false, yes/no, on/off) is a ValueError naming it.
std::string dispatch_platform(const std::string& platform);

}  // namespace pypto_golden
