// The arguments of the test programs that take a tensor x, a scalar a and a tensor y.
#pragma once

#include "sim/dispatch.h"

#include <ATen/ATen.h>

#include <vector>

inline std::vector<pypto_golden::sim::HostArg> args_for(const at::Tensor& x, double a, const at::Tensor& y) {
  std::vector<pypto_golden::sim::HostArg> args(3);
  args[0].tensor = x;
  args[1].is_tensor = false;
  args[1].scalar = c10::Scalar(a);
  args[2].tensor = y;
  return args;
}
