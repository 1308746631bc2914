#include "run/platforms.h"

#include "run/run_errors.h"

#include <pybind11/pybind11.h>

#include <cctype>
#include <cstdlib>

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

namespace {

bool simulate_hardware() {
  const char* raw = std::getenv("PYPTO_GOLDEN_SIMULATE");
  if (!raw) return false;
  std::string v(raw);
  for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw pybind11::value_error("PYPTO_GOLDEN_SIMULATE must be 1 or 0, got '" + std::string(raw) + "'");
}

}  // namespace

std::string dispatch_platform(const std::string& platform) {
  require_known_platform(platform);
  if ((platform == "a2a3" || platform == "a5") && simulate_hardware()) return platform + "sim";
  return platform;
}

}  // namespace pypto_golden
