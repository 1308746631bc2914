#include "sim/device_registry.h"

#include <map>
#include <memory>
#include <mutex>

namespace pypto_golden::sim {

Device& simulated_device(int id) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<Device>> devices;
  DeviceOptions wanted = device_options_from_env();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = devices[id];
  if (!slot || slot->options().threads != wanted.threads || slot->options().shuffle != wanted.shuffle)
    slot = std::make_unique<Device>(id, wanted);
  return *slot;
}

}  // namespace pypto_golden::sim
