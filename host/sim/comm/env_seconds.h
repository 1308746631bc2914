// A duration a user sets in seconds through an environment variable (PYPTO_SIM_WAIT_TIMEOUT,
// PYPTO_SIM_RANK_TIMEOUT): one parser, one message for a bad value.
#pragma once

#include <chrono>
#include <string>

namespace pypto_golden::sim {

// The value of `name` (a positive number of seconds, fractions allowed), else the default.
// Throws std::invalid_argument naming the variable and its raw value when it is malformed.
std::chrono::milliseconds seconds_from_env(const char* name, std::chrono::milliseconds default_value);

// A duration as such a variable would set it, for messages: "30 s", "0.5 s".
std::string seconds_text(std::chrono::milliseconds duration);

}  // namespace pypto_golden::sim
