// A byte count as people read it: "12.5 GiB", "640.0 MiB", "3.0 KiB", "512 B" (powers of 1024),
// and as people write it in a setting: "16G", "300M", "4096".
#pragma once

#include <cstdint>
#include <string>

namespace pypto_golden {

std::string bytes_text(uint64_t bytes);

// A positive byte count, optionally with a K, M, G or T suffix (powers of 1024). Throws
// std::invalid_argument naming `setting` and the raw text otherwise.
uint64_t parse_byte_count(const std::string& raw, const std::string& setting);

}  // namespace pypto_golden
