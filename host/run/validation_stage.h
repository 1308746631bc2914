// The validate stage: every Out / InOut tensor against its golden, one report for all.
#pragma once

#include "report/run_record.h"
#include "run/native_spec.h"
#include "run/stage_log.h"

#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pypto_golden {

struct ValidationReport {
  bool passed = true;
  std::string error;  // "Output(s) does not match golden: ['y']\n<details>" when failed
  std::vector<OutputRecord> outputs;  // each output's verdict, in spec order
};

// Every compare_fn key must name an Out / InOut tensor of the specs (directions stamped);
// throws SpecError naming each key that does not, what it names instead, and the outputs.
// `owner` ends the message's "... is not an output of <owner>" ("kernel 'k'").
void check_compare_fn(const pybind11::handle& compare_fn, const std::vector<NativeSpec>& specs,
                      const std::string& owner);

// compare_fn maps output names to Python comparators (called with the compare_fn protocol,
// README "golden.run"); other outputs use the native allclose gate. Prints one line per
// output; the report heads each failing output's detail (validate/gate_report.h) and ends
// it with `note(k)` for the output's spec index k, when that is not empty (what the runtime
// saw, e.g. elements the kernel never wrote). `note` is called for failing outputs only.
ValidationReport validate_outputs(const std::vector<NativeSpec>& specs,
                                  const std::vector<at::Tensor>& host_tensors,
                                  const std::map<std::string, at::Tensor>& expected,
                                  const pybind11::handle& compare_fn, double rtol, double atol,
                                  const std::function<std::string(size_t)>& note, const StageLog& log);

}  // namespace pypto_golden
