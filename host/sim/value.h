// A runtime value of the simulator: a scalar (with its PyPTO dtype), a device tensor view,
// or a small aggregate (tuple/list) used for multiple returns and shape arguments.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pypto_golden::sim {

// What a write wrote of its window: the shape of the corner at the window's start, empty
// for the whole window (what a dispatch tracks of a pure Out, sim/write_log.h).
using WrittenCorner = std::vector<int64_t>;

struct Value {
  enum class Kind : uint8_t { None, Int, Float, Bool, Str, DType, Tensor, Tuple, List };

  Kind kind = Kind::None;
  c10::ScalarType stype = c10::kLong;  // scalar dtype (Int/Float/Bool) or DType payload
  int64_t i = 0;
  double f = 0.0;
  at::Tensor tensor;
  std::shared_ptr<const std::string> str;
  std::shared_ptr<const std::vector<Value>> items;
  // Tensors only: the valid region, one extent per axis, anchored at the origin
  // (see host/sim/IR.md). Empty = the whole tensor is valid (the common case, free to copy).
  std::vector<int64_t> valid;

  static Value none() { return Value{}; }
  static Value from_int(int64_t v, c10::ScalarType t = c10::kLong);
  static Value from_float(double v, c10::ScalarType t = c10::kFloat);
  static Value from_bool(bool v);
  static Value from_tensor(at::Tensor t);
  // A tensor with a valid region; a region equal to the shape is stored as "fully valid".
  static Value from_tensor(at::Tensor t, std::vector<int64_t> valid_shape);
  static Value from_string(std::string s);
  static Value from_dtype(c10::ScalarType t);
  // A dtype by PyPTO name ("uint32"): keeps the name in `str`, since some PyPTO dtypes share
  // an ATen storage type (uint32 and int64 are both stored as int64).
  static Value from_dtype_name(const std::string& pypto_name);
  // The ATen type a dtype value named `pypto_name` stands for; int64 for pl.TASK_ID, which
  // names no tensor dtype (task ids are int64 values, TASK_ID arrays hold them). nullopt
  // for an unknown name.
  static std::optional<c10::ScalarType> dtype_named(const std::string& pypto_name);
  static Value tuple(std::vector<Value> items);
  static Value list(std::vector<Value> items);

  bool is_scalar() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool is_tensor() const { return kind == Kind::Tensor; }
  // Tensors: whether every element is valid, and the valid extents (the shape when fully valid).
  bool fully_valid() const { return valid.empty(); }
  std::vector<int64_t> valid_shape() const;
  // The valid region as a view of the tensor (the tensor itself when fully valid).
  at::Tensor valid_view() const;
  // DType values: the PyPTO name ("uint32" when it was given by name, else from the ATen type).
  std::string dtype_name() const;

  // Scalar accessors; throw KernelError naming `what` when the value is not a scalar.
  int64_t as_int(const char* what) const;
  double as_double(const char* what) const;
  bool truthy(const char* what) const;
  const at::Tensor& as_tensor(const char* what) const;

  // Short description for messages: "tensor fp32 (128, 256)", "scalar int64 3".
  std::string describe() const;
};

const char* kind_name(Value::Kind k);

}  // namespace pypto_golden::sim
