#include "validate/gate_report.h"

namespace pypto_golden {

GateResult gate_result(const GateLines& failure) {
  GateResult r;
  r.passed = failure.empty();
  for (size_t k = 0; k < failure.size(); ++k)
    r.detail += (k ? "\n" : "") + (failure[k].empty() ? std::string() : "    " + failure[k]);
  return r;
}

std::string output_failure_text(const std::string& name, const std::optional<std::string>& label,
                                const std::string& shape_dtype, const std::string& detail) {
  return "  '" + name + "' FAIL" + (label ? " (" + *label + ")" : std::string()) + "  " + shape_dtype + "\n" + detail;
}

}  // namespace pypto_golden
