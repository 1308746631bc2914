// PYPTO_SIM_NAN_CHECK=1: find where a NaN or an infinity first appears in a kernel. After
// every tensor op, a result with a non-finite value in its valid region when none of the op's
// tensor inputs had one is a KernelError naming the op and the first such index (the
// statement that ran it adds file:line).
#pragma once

#include "sim/ops/op_args.h"

namespace pypto_golden::sim {

// Whether the device running `args` (or `device`; none: no) checks (PYPTO_SIM_NAN_CHECK).
bool finite_check_on(const OpArgs& args);
bool finite_check_on(const Device* device);

// Throws KernelError when `result` (a tensor value) has a non-finite element in its valid
// region and no tensor input of `args` has one in its own.
void check_finite_result(const OpArgs& args, const Value& result);

}  // namespace pypto_golden::sim
