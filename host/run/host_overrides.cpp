#include "run/host_overrides.h"

namespace pypto_golden {

HostOverrides& host_overrides() {
  static HostOverrides overrides;
  return overrides;
}

}  // namespace pypto_golden
