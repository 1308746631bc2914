#include "sim/device_registry.h"

#include <map>
#include <memory>
#include <mutex>

namespace pypto_golden::sim {

std::shared_ptr<Device> simulated_device(int id) {
  static std::mutex mu;
  static std::map<int, std::shared_ptr<Device>> devices;
  DeviceOptions wanted = device_options_from_env();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = devices[id];
  if (!slot || slot->options() != wanted)  // a PYPTO_SIM_* variable changed: a device with the new options
    slot = std::make_shared<Device>(id, wanted);
  return slot;
}

}  // namespace pypto_golden::sim
