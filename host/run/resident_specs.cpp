#include "run/resident_specs.h"

#include "run/run_errors.h"
#include "tensor/python_repr.h"

#include <string>

namespace pypto_golden {

bool has_residents(const std::vector<NativeSpec>& specs) {
  for (const auto& s : specs)
    if (s.is_tensor && s.residency != Residency::None) return true;
  return false;
}

void check_residents(const std::vector<NativeSpec>& specs, const std::vector<int>& devices) {
  if (!has_residents(specs)) return;
  if (devices.empty())
    throw RunFailure("resident is only supported for L3 distributed programs (a @pl.jit.host kernel compiled with "
                     "distributed_config).");
  const int world = static_cast<int>(devices.size());
  const std::string workers = std::to_string(world) + " device(s), workers 0.." + std::to_string(world - 1);
  for (const auto& s : specs) {
    const std::string who = "TensorSpec '" + s.name + "': ";
    if (s.residency == Residency::Card && s.resident_worker >= world)
      throw RunFailure(who + "resident=" + std::to_string(s.resident_worker) + " names worker " +
                       std::to_string(s.resident_worker) + ", but the program runs on " + workers);
    if (s.residency != Residency::Stacked) continue;
    if (s.shape.size() < 2 || s.shape[0] < 1)
      throw RunFailure(who + "resident=\"stacked\" needs shape [B, *tail], got " + python_shape_repr(s.shape));
    if (s.shape[0] > world)
      throw RunFailure(who + "resident=\"stacked\" puts shard i on worker i, so its leading dim can be at most " +
                       std::to_string(world) + " (the program runs on " + workers + "), got shape " +
                       python_shape_repr(s.shape));
  }
}

}  // namespace pypto_golden
