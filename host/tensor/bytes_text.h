// A byte count as people read it: "12.5 GiB", "640.0 MiB", "3.0 KiB", "512 B" (powers of 1024).
#pragma once

#include <cstdint>
#include <string>

namespace pypto_golden {

std::string bytes_text(uint64_t bytes);

}  // namespace pypto_golden
