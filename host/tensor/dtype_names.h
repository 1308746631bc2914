// PyPTO dtype names (as in compiled_meta.json and the simulator IR) and their ATen types.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

namespace pypto_golden {

// ATen storage type for a PyPTO dtype name ("fp32", "bfloat16", ...); nullopt if unknown.
// UINT32 and UINT16 have no ATen type in torch 1.13: they are stored widened (int64/int32).
std::optional<c10::ScalarType> scalar_type_from_pypto(const std::string& name);

// PyPTO name of an ATen type ("fp32"); throws std::invalid_argument if it has none.
std::string pypto_name(c10::ScalarType type);

// Python spelling of a torch dtype ("torch.float32"), as users see it in reports.
std::string torch_dtype_repr(c10::ScalarType type);

}  // namespace pypto_golden
