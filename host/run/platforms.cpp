#include "run/platforms.h"

#include "run/run_errors.h"

#include <pybind11/pybind11.h>

namespace pypto_golden {

void require_known_platform(const std::string& platform) {
  if (platform != "a2a3sim" && platform != "a5sim" && platform != "a2a3" && platform != "a5")
    throw pybind11::value_error("Invalid platform '" + platform +
                                "'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.");
}

void require_simulator(const std::string& platform) {
  require_known_platform(platform);
  if (platform != "a2a3sim" && platform != "a5sim")
    throw DeviceUnavailableError("platform '" + platform +
                                 "' needs an Ascend NPU runtime (CANN and a device), which this machine does "
                                 "not have; run on the simulator with -p " + platform + "sim");
}

}  // namespace pypto_golden
