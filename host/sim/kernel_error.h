// Errors raised while a kernel runs on the simulator.
#pragma once

#include <stdexcept>
#include <string>

namespace pypto_golden::sim {

// A mistake in the kernel (out-of-bounds slice, wrong operand kind...). It has no source
// location yet: the statement that was executing adds it and turns it into a SimError.
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A located kernel failure: "<file>:<line>: <what> (r=3, c=0)".
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ctrl-C (SIGINT) arrived while the simulator was running.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted by SIGINT") {}
};

// The simulator program file cannot be used (missing, malformed, unknown op...).
class ProgramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pypto_golden::sim
