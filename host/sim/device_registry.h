// The simulated devices of this process, created on first use and kept for later
// dispatches (benchmark rounds must not pay for thread start-up).
#pragma once

#include "sim/device.h"

#include <memory>

namespace pypto_golden::sim {

// The device with this id, configured from PYPTO_SIM_* (re-created when those change).
// Shared: a device replaced while a dispatch still runs on it lives until that ends.
std::shared_ptr<Device> simulated_device(int id);

}  // namespace pypto_golden::sim
