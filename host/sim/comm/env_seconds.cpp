#include "sim/comm/env_seconds.h"

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pypto_golden::sim {

std::chrono::milliseconds seconds_from_env(const char* name, std::chrono::milliseconds default_value) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return default_value;
  char* end = nullptr;
  const double seconds = std::strtod(raw, &end);
  // A day bounds it: beyond that the milliseconds would overflow the clocks' arithmetic.
  if (end == raw || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 || seconds > 86400)
    throw std::invalid_argument(std::string(name) + " must be a positive number of seconds (at most 86400), got '" +
                                raw + "'");
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

std::string seconds_text(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
  return text;
}

}  // namespace pypto_golden::sim
