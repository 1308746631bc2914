#include "tensor/bytes_text.h"

#include <cstdio>
#include <stdexcept>

namespace pypto_golden {

std::string bytes_text(uint64_t bytes) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
  return text;
}

uint64_t parse_byte_count(const std::string& raw, const std::string& setting) {
  size_t end = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(raw, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  uint64_t scale = 1;
  const std::string suffix = end ? raw.substr(end) : "";
  if (suffix == "K" || suffix == "k") scale = 1ull << 10;
  else if (suffix == "M" || suffix == "m") scale = 1ull << 20;
  else if (suffix == "G" || suffix == "g") scale = 1ull << 30;
  else if (suffix == "T" || suffix == "t") scale = 1ull << 40;
  else if (!suffix.empty()) end = 0;
  if (!end || raw[0] == '-' || n == 0)
    throw std::invalid_argument(setting + " must be a positive byte count, optionally with a K, M, G or T suffix "
                                "(e.g. 16G), got '" + raw + "'");
  return static_cast<uint64_t>(n) * scale;
}

}  // namespace pypto_golden
