// Options given on the pypto-golden command line that apply to every golden.run call of
// the script (--save-data, --golden-data DIR, --runtime-dir DIR, --compile-only), so a
// failing run can be replayed without editing the script.
#pragma once

#include <optional>
#include <string>

namespace pypto_golden {

struct HostOverrides {
  bool save_data = false;
  bool compile_only = false;
  std::optional<std::string> golden_data;  // absolute paths
  std::optional<std::string> runtime_dir;
};

// The process's overrides (empty under python3).
HostOverrides& host_overrides();

}  // namespace pypto_golden
