// How a gate's verdict becomes text. A gate states its failure as unindented lines; this file
// is the one place that indents them into the compare_fn detail and heads a failing output's
// block in the run's report (which host/run/validation_stage.cpp assembles).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pypto_golden {

// A gate's failure, one entry a line, without indentation; empty when the gate passed. A line
// that belongs under another carries its own extra spaces ("  [0,1] actual_idx=3 ...").
using GateLines = std::vector<std::string>;

struct GateResult {
  bool passed = false;
  std::string detail;  // the failure report in compare_fn form (empty on pass)
};

// Passed when `failure` is empty; else the detail: every line indented by four spaces (an
// empty line stays empty) and joined by '\n'.
GateResult gate_result(const GateLines& failure);

// One failing output of the run's report, the header line then the detail:
//   "  'y' FAIL  shape=(4,) dtype=torch.float32\n<detail>"          the default allclose
//   "  'y' FAIL (label)  shape=(4,) dtype=torch.float32\n<detail>"  a compare_fn comparator
std::string output_failure_text(const std::string& name, const std::optional<std::string>& label,
                                const std::string& shape_dtype, const std::string& detail);

}  // namespace pypto_golden
