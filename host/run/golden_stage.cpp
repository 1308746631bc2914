#include "run/golden_stage.h"

#include "run/run_errors.h"
#include "sim/thread_pool.h"
#include "tensor/lazy_copy.h"

#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {

std::map<std::string, at::Tensor> compute_golden(const py::handle& golden_fn, const std::vector<NativeSpec>& specs,
                                                 const std::vector<at::Tensor>& host_tensors, const StageLog& log) {
  py::dict scratch;
  for (size_t k = 0; k < specs.size(); ++k) {
    const NativeSpec& s = specs[k];
    // Copy-on-write clones: the golden's writes stay its own, and the inputs it only reads
    // cost no copy.
    if (s.is_tensor) scratch[py::str(s.name)] = py::cast(lazy_copy(host_tensors[k]));
    else scratch[py::str(s.name)] = py::cast(s.value).attr("item")();
  }
  py::object returned = golden_fn(scratch);  // Ctrl-C in it: the stage log says interrupted
  sim::release_idle_omp_team();  // before the validation dispatch, which comes next
  std::string first_output;
  for (const auto& s : specs)
    if (first_output.empty() && s.is_tensor && s.direction != Direction::In) first_output = s.name;
  if (!returned.is_none() && !first_output.empty())
    log.line("[RUN]   warning: golden_fn returned " + std::string(py::repr(py::type::of(returned))) +
             ", which is ignored: the outputs are what it writes into values (values['" + first_output +
             "'][:] = ...)");
  std::map<std::string, at::Tensor> expected;
  for (const auto& s : specs) {
    if (!s.is_tensor || s.direction == Direction::In) continue;
    if (!scratch.contains(py::str(s.name)))
      throw GoldenError("golden_fn removed output '" + s.name + "' from values; it must fill values['" + s.name +
                        "'] with a torch.Tensor");
    py::object v = scratch[py::str(s.name)];
    if (!THPVariable_Check(v.ptr()))
      throw GoldenError("golden_fn left output '" + s.name + "' as " + std::string(py::repr(py::type::of(v))) +
                        "; it must fill values['" + s.name + "'] with a torch.Tensor");
    expected[s.name] = v.cast<at::Tensor>();
  }
  return expected;
}

}  // namespace pypto_golden
