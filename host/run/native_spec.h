// The specs of a run as the native pipeline sees them, read once from the Python
// TensorSpec / ScalarSpec objects.
#pragma once

#include "artifact/compiled_meta.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace pypto_golden {

// TensorSpec(resident=...): where an L3 run keeps the tensor between dispatches.
enum class Residency {
  None,     // uploaded and read back by every dispatch
  Card,     // the whole tensor on one worker (resident=<int>)
  Stacked,  // shard i of the leading dim on worker i (resident="stacked")
};

struct NativeSpec {
  std::string name;
  bool is_tensor = true;
  std::vector<int64_t> shape;            // tensors
  // Tensors: the spec's own shape when its init_value tensor has another (the run takes the
  // tensor's, as the public harness does, and warns); else empty.
  std::vector<int64_t> declared_shape;
  c10::ScalarType dtype = c10::kFloat;
  pybind11::object init_value;           // tensors: the init_value as given
  at::Tensor value;                      // scalars: the 0-dim value tensor
  bool compile_runtime = false;          // scalars
  bool stepped = false;                  // scalars: a non-zero benchmark_step
  pybind11::object is_output;            // legacy TensorSpec(is_output=...) or None
  Residency residency = Residency::None;  // tensors
  int resident_worker = -1;              // Residency::Card: the worker id
  c10::Scalar step;                      // scalars, when stepped: the benchmark_step
  Direction direction = Direction::In;   // stamped from the artifact
};

// Reads the Python spec list; throws SpecError for duplicate names or objects that are not
// specs.
std::vector<NativeSpec> read_specs(const pybind11::handle& specs);

// ScalarType of a Python torch.dtype object; throws SpecError naming `owner` otherwise.
c10::ScalarType scalar_type_of(const pybind11::handle& dtype, const std::string& owner);

// The Python torch.dtype object of a ScalarType.
pybind11::object python_dtype(c10::ScalarType type);

}  // namespace pypto_golden
