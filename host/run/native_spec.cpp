#include "run/native_spec.h"

#include "run/run_errors.h"

#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {

c10::ScalarType scalar_type_of(const py::handle& dtype, const std::string& owner) {
  if (!THPDtype_Check(dtype.ptr()))
    throw SpecError(owner + ": dtype must be a torch.dtype, got " +
                    std::string(py::repr(dtype)));
  return reinterpret_cast<THPDtype*>(dtype.ptr())->scalar_type;
}

py::object python_dtype(c10::ScalarType type) {
  return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(torch::getTHPDtype(type)));
}

std::vector<NativeSpec> read_specs(const py::handle& specs) {
  std::vector<NativeSpec> out;
  if (specs.is_none()) return out;
  for (const py::handle item : specs) {
    NativeSpec s;
    if (!py::hasattr(item, "name") || !py::hasattr(item, "dtype"))
      throw SpecError("specs must be TensorSpec or ScalarSpec objects, got " + std::string(py::repr(item)));
    s.name = py::str(item.attr("name"));
    std::string owner = (py::hasattr(item, "shape") ? "TensorSpec '" : "ScalarSpec '") + s.name + "'";
    s.dtype = scalar_type_of(item.attr("dtype"), owner);
    if (py::hasattr(item, "shape")) {
      s.is_tensor = true;
      for (const py::handle d : item.attr("shape")) s.shape.push_back(d.cast<int64_t>());
      s.init_value = item.attr("init_value");
      if (THPVariable_Check(s.init_value.ptr())) {
        const at::Tensor& given = THPVariable_Unpack(s.init_value.ptr());
        if (!given.sizes().equals(s.shape)) {
          s.declared_shape = s.shape;
          s.shape = given.sizes().vec();
        }
      }
      s.is_output = py::getattr(item, "is_output", py::none());
      // golden.TensorSpec has validated resident=; anything else is off.
      py::object resident = py::getattr(item, "resident", py::none());
      if (py::isinstance<py::str>(resident) && resident.cast<std::string>() == "stacked") {
        s.residency = Residency::Stacked;
      } else if (py::isinstance<py::int_>(resident) && !py::isinstance<py::bool_>(resident)) {
        s.residency = Residency::Card;
        s.resident_worker = resident.cast<int>();
      }
    } else {
      s.is_tensor = false;
      s.value = item.attr("value").cast<at::Tensor>();
      s.compile_runtime = py::bool_(py::getattr(item, "compile_runtime", py::bool_(false)));
      py::object step = py::getattr(item, "benchmark_step", py::none());
      s.stepped = !step.is_none() && py::bool_(step);
      if (s.stepped)
        s.step = c10::isIntegralType(s.dtype, /*includeBool=*/false) ? c10::Scalar(step.cast<int64_t>())
                                                                     : c10::Scalar(step.cast<double>());
    }
    for (const auto& prev : out)
      if (prev.name == s.name)
        throw SpecError("two specs are named '" + s.name + "'; every spec needs its own name");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace pypto_golden
