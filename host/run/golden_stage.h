// The compute-golden stage: run the script's golden function on clones.
#pragma once

#include "run/native_spec.h"
#include "run/stage_log.h"

#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include <map>
#include <string>
#include <vector>

namespace pypto_golden {

// Calls golden_fn(scratch) where scratch holds clones of every host tensor (In/InOut as
// generated, pure Out as created from its spec) and scalars as Python numbers; returns the
// expected output tensors by name. Throws GoldenError when an output is not a tensor or
// was removed; warns on `log` when golden_fn returns something (the return value is not
// its result: the harness reads values, as the public harness does).
std::map<std::string, at::Tensor> compute_golden(const pybind11::handle& golden_fn,
                                                 const std::vector<NativeSpec>& specs,
                                                 const std::vector<at::Tensor>& host_tensors, const StageLog& log);

}  // namespace pypto_golden
