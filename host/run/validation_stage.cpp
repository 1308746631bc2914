#include "run/validation_stage.h"

#include "run/run_errors.h"
#include "validate/allclose.h"

#include <torch/csrc/utils/pybind.h>

#include <optional>

namespace py = pybind11;

namespace pypto_golden {
namespace {

// A Python comparator: (actual, expected, *, actual_outputs, expected_outputs, inputs, rtol,
// atol) -> (ok, detail), its detail already in compare_fn form. Raising or returning something
// else fails the output, naming it.
GateResult call_comparator(const py::handle& cmp, const std::string& label, const at::Tensor& actual,
                           const at::Tensor& expected, const py::dict& actual_outputs,
                           const py::dict& expected_outputs, const py::dict& inputs, double rtol, double atol) {
  try {
    py::object result = cmp(py::cast(actual), py::cast(expected), py::arg("actual_outputs") = actual_outputs,
                            py::arg("expected_outputs") = expected_outputs, py::arg("inputs") = inputs,
                            py::arg("rtol") = rtol, py::arg("atol") = atol);
    if (!py::isinstance<py::tuple>(result) || py::len(result) != 2)
      return gate_result({"comparator " + label + " returned " + std::string(py::repr(result)) +
                          "; a comparator must return (ok: bool, detail: str)"});
    py::tuple pair = result;
    // Inside the try: an ok that has no truth value (a multi-element tensor) fails the output.
    GateResult v;
    v.passed = py::bool_(pair[0]);
    v.detail = py::str(pair[1]);
    return v;
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_KeyboardInterrupt)) throw;
    py::object type_name = e.type().attr("__name__");
    return gate_result({"comparator " + label + " raised " + std::string(py::str(type_name)) + ": " +
                        std::string(py::str(e.value()))});
  }
}

std::string comparator_label(const py::handle& cmp) {
  py::object name = py::getattr(cmp, "__name__", py::none());
  return name.is_none() ? "custom" : std::string(py::str(name));
}

// "[RUN]   'y' PASS  shape=(4,) dtype=torch.float32" and, for a comparator, " (label)" after it.
std::string output_line(const std::string& name, bool passed, const std::string& shape_dtype,
                        const std::optional<std::string>& label) {
  return "[RUN]   '" + name + "' " + (passed ? "PASS" : "FAIL") + "  " + shape_dtype +
         (label ? " (" + *label + ")" : std::string());
}

}  // namespace

void check_compare_fn(const py::handle& compare_fn, const std::vector<NativeSpec>& specs, const std::string& owner) {
  if (compare_fn.is_none()) return;
  std::string outputs, bad;
  size_t bad_count = 0;
  for (const auto& s : specs)
    if (s.is_tensor && s.direction != Direction::In) outputs += (outputs.empty() ? "'" : ", '") + s.name + "'";
  for (const auto& item : py::reinterpret_borrow<py::dict>(compare_fn)) {
    std::string what;
    if (!py::isinstance<py::str>(item.first)) {
      what = std::string(py::repr(item.first)) + " (not a name)";
    } else {
      const std::string name = py::str(item.first);
      const NativeSpec* spec = nullptr;
      for (const auto& s : specs)
        if (s.name == name) spec = &s;
      if (spec && spec->is_tensor && spec->direction != Direction::In) continue;
      what = "'" + name + "' (" + (!spec ? "no such parameter" : spec->is_tensor ? "an In tensor" : "a scalar") + ")";
    }
    bad += (bad.empty() ? "" : ", ") + what;
    ++bad_count;
  }
  if (bad_count == 0) return;
  throw SpecError("compare_fn names " + bad + ", which " + (bad_count == 1 ? "is not an output" : "are not outputs") +
                  " of " + owner + "; its outputs are " + (outputs.empty() ? "none" : outputs));
}

ValidationReport validate_outputs(const std::vector<NativeSpec>& specs, const std::vector<at::Tensor>& host_tensors,
                                  const std::map<std::string, at::Tensor>& expected, const py::handle& compare_fn,
                                  double rtol, double atol, const std::function<std::string(size_t)>& note,
                                  const StageLog& log) {
  ValidationReport report;
  py::dict comparators = compare_fn.is_none() ? py::dict() : py::dict(py::reinterpret_borrow<py::object>(compare_fn));
  // Context handed to Python comparators, built only when one exists.
  py::dict actual_outputs, expected_outputs, inputs;
  if (py::len(comparators) > 0) {
    for (size_t k = 0; k < specs.size(); ++k) {
      const NativeSpec& s = specs[k];
      if (!s.is_tensor) inputs[py::str(s.name)] = py::cast(s.value);
      else if (s.direction == Direction::In) inputs[py::str(s.name)] = py::cast(host_tensors[k]);
      else {
        actual_outputs[py::str(s.name)] = py::cast(host_tensors[k]);
        expected_outputs[py::str(s.name)] = py::cast(expected.at(s.name));
      }
    }
  }

  std::vector<std::string> failed;
  std::vector<std::string> blocks;  // one failing output each: header and detail
  for (size_t k = 0; k < specs.size(); ++k) {
    const NativeSpec& s = specs[k];
    if (!s.is_tensor || s.direction == Direction::In) continue;
    const at::Tensor& actual = host_tensors[k];
    const at::Tensor& golden = expected.at(s.name);
    std::optional<std::string> label;  // set for a compare_fn comparator
    std::string tolerance;
    GateResult r;
    if (comparators.contains(py::str(s.name))) {
      py::object cmp = comparators[py::str(s.name)];
      label = comparator_label(cmp);
      tolerance = py::repr(cmp);
      r = call_comparator(cmp, *label, actual, golden, actual_outputs, expected_outputs, inputs, rtol, atol);
    } else {
      tolerance = "rtol=" + std::string(py::repr(py::float_(rtol))) + ", atol=" + std::string(py::repr(py::float_(atol)));
      py::gil_scoped_release release;
      r = allclose_check(actual, golden, rtol, atol);
    }
    const std::string text = shape_dtype_text(actual);
    log.line(output_line(s.name, r.passed, text, label));
    report.outputs.push_back({s.name, r.passed, text, label.value_or(""), "", tolerance, std::nullopt});
    if (!r.passed) {
      failed.push_back(s.name);
      blocks.push_back(output_failure_text(s.name, label, text, r.detail));
      if (const std::string extra = note ? note(k) : std::string(); !extra.empty()) blocks.back() += "\n" + extra;
      report.outputs.back().detail = blocks.back();
    }
  }
  if (!failed.empty()) {
    report.passed = false;
    std::string names = "[";
    for (size_t k = 0; k < failed.size(); ++k) names += (k ? ", '" : "'") + failed[k] + "'";
    report.error = "Output(s) does not match golden: " + names + "]\n";
    for (size_t k = 0; k < blocks.size(); ++k) report.error += (k ? "\n" : "") + blocks[k];
  }
  return report;
}

}  // namespace pypto_golden
