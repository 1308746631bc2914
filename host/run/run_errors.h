// Errors of a harness run that reach the script as Python exceptions (the bindings
// register each as a Python class under the same name).
#pragma once

#include <stdexcept>
#include <string>

namespace pypto_golden {

// Specs that do not fit the kernel (order, names, count, shape, dtype) or each other.
class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The requested platform needs hardware this machine does not have.
class DeviceUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The golden function failed or left an output that is not a tensor.
class GoldenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A harness-level problem that ends the run with RunResult(passed=False, error=what())
// rather than an exception: unusable runtime_dir / golden_data, corrupt snapshot files.
class RunFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ctrl-C inside a native stage; becomes KeyboardInterrupt naming the stage.
class StageInterrupted : public std::runtime_error {
 public:
  StageInterrupted(const std::string& stage, double seconds);
  const std::string& stage() const { return stage_; }

 private:
  std::string stage_;
};

}  // namespace pypto_golden
