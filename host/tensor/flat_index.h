// Flat element indices turned back into one index per axis (for messages that name an element).
#pragma once

#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <vector>

namespace pypto_golden {

// The multi-dimensional index of flat (row-major) index `flat` in `shape`.
std::vector<int64_t> unravel(int64_t flat, c10::IntArrayRef shape);

}  // namespace pypto_golden
