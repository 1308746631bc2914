#include "run/golden_stage.h"

#include "run/run_errors.h"
#include "sim/kernel_error.h"
#include "tensor/lazy_copy.h"


#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {

std::map<std::string, at::Tensor> compute_golden(const py::handle& golden_fn, const std::vector<NativeSpec>& specs,
                                                 const std::vector<at::Tensor>& host_tensors) {
  py::dict scratch;
  for (size_t k = 0; k < specs.size(); ++k) {
    const NativeSpec& s = specs[k];
    // Copy-on-write clones: the golden's writes stay its own, and the inputs it only reads
    // cost no copy.
    if (s.is_tensor) scratch[py::str(s.name)] = py::cast(lazy_copy(host_tensors[k]));
    else scratch[py::str(s.name)] = py::cast(s.value).attr("item")();
  }
  try {
    golden_fn(scratch);
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_KeyboardInterrupt)) throw sim::Interrupted();
    throw;
  }
  std::map<std::string, at::Tensor> expected;
  for (const auto& s : specs) {
    if (!s.is_tensor || s.direction == Direction::In) continue;
    py::object v = scratch.contains(py::str(s.name)) ? py::object(scratch[py::str(s.name)]) : py::none();
    if (!THPVariable_Check(v.ptr()))
      throw GoldenError("golden_fn left output '" + s.name + "' as " + std::string(py::repr(py::type::of(v))) +
                        "; it must fill values['" + s.name + "'] with a torch.Tensor");
    expected[s.name] = v.cast<at::Tensor>();
  }
  return expected;
}

}  // namespace pypto_golden
