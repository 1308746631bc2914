// The unsigned integers of torch.save's formats: zip records and pickle arguments store them
// least significant byte first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pypto_golden {

// The integer in the `width` bytes at `p`.
inline uint64_t little_endian(const unsigned char* p, int width) {
  uint64_t v = 0;
  for (int k = width - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// The integer in the `width` bytes of `bytes` at `at` (the caller checks they are there).
inline uint64_t little_endian(const std::string& bytes, size_t at, int width) {
  return little_endian(reinterpret_cast<const unsigned char*>(bytes.data()) + at, width);
}

}  // namespace pypto_golden
