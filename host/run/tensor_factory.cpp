#include "run/tensor_factory.h"

#include "run/memory_budget.h"
#include "run/run_errors.h"
#include "tensor/float8.h"
#include "tensor/lazy_copy.h"
#include "tensor/python_repr.h"
#include "tensor/untouched_zeros.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <cmath>

namespace py = pybind11;

namespace pypto_golden {
namespace {

// Whether init_value asks for all-zero bytes (not -0.0, whose sign bit is set).
bool zero_scalar(py::handle init) {
  if (PyLong_Check(init.ptr())) return PyObject_Not(init.ptr()) == 1;  // bool is an int too
  if (PyFloat_Check(init.ptr())) {
    const double v = init.cast<double>();
    return v == 0.0 && !std::signbit(v);
  }
  return false;
}

at::Tensor checked_shape(const NativeSpec& spec, at::Tensor t, const char* what) {
  if (!t.sizes().equals(spec.shape))
    throw SpecError("TensorSpec '" + spec.name + "': " + what + " has shape " +
                    python_shape_repr(t.sizes()) + " but the spec says " + python_shape_repr(spec.shape));
  return t;
}

at::Tensor make_host_tensor(const NativeSpec& spec) {
  const auto opts = at::TensorOptions().dtype(spec.dtype);
  const py::handle init = spec.init_value;
  // Most of a model script's weights: their pages cost nothing until written.
  if (zero_init(spec)) return untouched_zeros(spec.shape, spec.dtype);
  if (PyBool_Check(init.ptr())) return at::full(spec.shape, init.cast<bool>() ? 1 : 0, opts);
  if (PyLong_Check(init.ptr())) return at::full(spec.shape, init.cast<int64_t>(), opts);
  if (PyFloat_Check(init.ptr())) return at::full(spec.shape, init.cast<double>(), opts);
  if (THPVariable_Check(init.ptr())) {
    // Its shape is the spec's: read_specs takes the tensor's, as the public harness does.
    at::Tensor given = init.cast<at::Tensor>();
    // Never the caller's tensor itself: the run must never write into it. A copy-on-write
    // one where it can be, so that a script's own weights are not held twice.
    if (init_tensor_shared(spec)) return lazy_copy(given);
    return given.to(spec.dtype, /*non_blocking=*/false, /*copy=*/true).contiguous();
  }
  if (PyCallable_Check(init.ptr())) {
    py::module_ torch = py::module_::import("torch");
    // torch has no random kernels for the 8-bit floats: draw in float32 and round, as a
    // script writes it (torch.randn(shape).to(torch.float8_e4m3fn)).
    // (.to is a no-op for every other dtype.)
    const auto draw = is_float8(spec.dtype) ? at::TensorOptions().dtype(at::kFloat) : opts;
    const bool randn = init.is(torch.attr("randn")), rand = init.is(torch.attr("rand"));
    if ((randn || rand) && !at::isFloatingType(spec.dtype) && !at::isComplexType(spec.dtype))
      throw SpecError("TensorSpec '" + spec.name + "': init_value=torch." +
                      std::string(py::str(init.attr("__name__"))) + " draws floating-point values, but the spec's dtype is " +
                      std::string(py::str(python_dtype(spec.dtype))) +
                      ": give the spec a floating-point dtype, or an init_value callable that makes integers "
                      "(torch.randint(low, high, shape, dtype=...))");
    if (randn) return at::randn(spec.shape, draw).to(spec.dtype);
    if (rand) return at::rand(spec.shape, draw).to(spec.dtype);
    if (init.is(torch.attr("ones"))) return at::ones(spec.shape, opts);
    py::object produced = init();
    py::object as_tensor = torch.attr("as_tensor")(produced, py::arg("dtype") = python_dtype(spec.dtype));
    at::Tensor t = as_tensor.cast<at::Tensor>();
    checked_shape(spec, t, "the init_value callable's result");
    // The callable's own tensor (it may keep it, as `lambda: weights` does): never written by
    // the run, so a copy-on-write one where torch can share it (a model's GiB-sized
    // weights were copied here).
    if (t.const_data_ptr() == (THPVariable_Check(produced.ptr()) ? produced.cast<at::Tensor>().const_data_ptr() : nullptr))
      t = lazy_copy(t);
    return t.contiguous();
  }
  throw py::type_error("Unsupported init_value type " + std::string(py::str(py::type::of(init))) +
                       " for tensor '" + spec.name + "'");
}

}  // namespace

bool zero_init(const NativeSpec& spec) {
  const py::handle init = spec.init_value;
  return !init || init.is_none() || zero_scalar(init) || init.is(py::module_::import("torch").attr("zeros"));
}

bool init_tensor_shared(const NativeSpec& spec) {
  const py::handle init = spec.init_value;
  if (!init || !THPVariable_Check(init.ptr())) return false;
  const at::Tensor& given = THPVariable_Unpack(init.ptr());
  return given.scalar_type() == spec.dtype && given.device().is_cpu() && given.is_contiguous() &&
         given.sizes().equals(spec.shape) && shareable(given);
}

at::Tensor create_host_tensor(const NativeSpec& spec) {
  // The memory budget counts the spec's own bytes; an init_value callable may allocate
  // far more (or the machine may have less than it said), and that ends the run the same way.
  const bool callable = spec.init_value && PyCallable_Check(spec.init_value.ptr());
  const std::string doing = callable ? "its init_value callable" : "its tensor";
  try {
    return make_host_tensor(spec);
  } catch (const py::error_already_set& e) {
    rethrow_if_out_of_memory(e.what(), spec.name, doing);
    throw;
  } catch (const c10::Error& e) {
    rethrow_if_out_of_memory(e.what(), spec.name, doing);
    throw;
  } catch (const std::bad_alloc&) {
    rethrow_if_out_of_memory("std::bad_alloc", spec.name, doing);
    throw;
  }
}

}  // namespace pypto_golden
