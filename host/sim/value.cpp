#include "sim/value.h"

#include "sim/kernel_error.h"
#include "sim/strided_view.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

namespace pypto_golden::sim {

Value Value::from_int(int64_t v, c10::ScalarType t) {
  Value out;
  out.kind = Kind::Int;
  out.stype = t;
  out.i = v;
  return out;
}

Value Value::from_float(double v, c10::ScalarType t) {
  Value out;
  out.kind = Kind::Float;
  out.stype = t;
  // Device scalar math happens in the scalar's own precision.
  out.f = t == c10::kFloat ? static_cast<double>(static_cast<float>(v)) : v;
  return out;
}

Value Value::from_bool(bool v) {
  Value out;
  out.kind = Kind::Bool;
  out.stype = c10::kBool;
  out.i = v ? 1 : 0;
  return out;
}

Value Value::from_tensor(at::Tensor t) {
  Value out;
  out.kind = Kind::Tensor;
  out.tensor = std::move(t);
  return out;
}

Value Value::from_tensor(at::Tensor t, std::vector<int64_t> valid_shape) {
  Value out;
  out.kind = Kind::Tensor;
  bool full = static_cast<int64_t>(valid_shape.size()) == t.dim();
  for (size_t k = 0; full && k < valid_shape.size(); ++k) full = valid_shape[k] == t.size(static_cast<int64_t>(k));
  if (!full) out.valid = std::move(valid_shape);
  out.tensor = std::move(t);
  return out;
}

std::vector<int64_t> Value::valid_shape() const {
  if (!valid.empty()) return valid;
  return tensor.defined() ? tensor.sizes().vec() : std::vector<int64_t>{};
}

at::Tensor Value::valid_view() const {
  if (valid.empty()) return tensor;
  return corner_view(tensor, valid);
}

Value Value::from_string(std::string s) {
  Value out;
  out.kind = Kind::Str;
  out.str = std::make_shared<const std::string>(std::move(s));
  return out;
}

Value Value::from_dtype(c10::ScalarType t) {
  Value out;
  out.kind = Kind::DType;
  out.stype = t;
  return out;
}

Value Value::from_dtype_name(const std::string& name) {
  Value out;
  out.kind = Kind::DType;
  auto t = dtype_named(name);
  if (!t) throw KernelError("unknown dtype '" + name + "'");
  out.stype = *t;
  out.str = std::make_shared<const std::string>(name);
  return out;
}

std::optional<c10::ScalarType> Value::dtype_named(const std::string& pypto_name) {
  if (pypto_name == "task_id") return c10::kLong;
  return scalar_type_from_pypto(pypto_name);
}

std::string Value::dtype_name() const {
  if (kind == Kind::DType && str) return *str;
  return pypto_name(stype);
}

Value Value::tuple(std::vector<Value> items) {
  Value out;
  out.kind = Kind::Tuple;
  out.items = std::make_shared<const std::vector<Value>>(std::move(items));
  return out;
}

Value Value::list(std::vector<Value> items) {
  Value out = tuple(std::move(items));
  out.kind = Kind::List;
  return out;
}

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::None: return "None";
    case Value::Kind::Int: return "integer scalar";
    case Value::Kind::Float: return "float scalar";
    case Value::Kind::Bool: return "bool scalar";
    case Value::Kind::Str: return "string";
    case Value::Kind::DType: return "dtype";
    case Value::Kind::Tensor: return "tensor";
    case Value::Kind::Tuple: return "tuple";
    case Value::Kind::List: return "list";
  }
  return "?";
}

int64_t Value::as_int(const char* what) const {
  if (kind == Kind::Int || kind == Kind::Bool) return i;
  throw KernelError(std::string(what) + " must be an integer scalar, got " + describe());
}

double Value::as_double(const char* what) const {
  if (kind == Kind::Float) return f;
  if (kind == Kind::Int || kind == Kind::Bool) return static_cast<double>(i);
  throw KernelError(std::string(what) + " must be a scalar, got " + describe());
}

bool Value::truthy(const char* what) const {
  if (kind == Kind::Float) return f != 0.0;
  if (kind == Kind::Int || kind == Kind::Bool) return i != 0;
  throw KernelError(std::string(what) + " must be a scalar, got " + describe());
}

const at::Tensor& Value::as_tensor(const char* what) const {
  if (kind == Kind::Tensor) return tensor;
  throw KernelError(std::string(what) + " must be a tensor, got " + describe());
}

std::string Value::describe() const {
  switch (kind) {
    case Kind::Int: return "scalar " + pypto_name(stype) + " " + std::to_string(i);
    case Kind::Float: return "scalar " + pypto_name(stype) + " " + python_float_repr(f);
    case Kind::Bool: return std::string("scalar bool ") + (i ? "True" : "False");
    case Kind::Tensor: {
      std::string out = "tensor " + pypto_name(tensor.scalar_type()) + " " + python_shape_repr(tensor.sizes());
      if (!valid.empty()) out += " valid " + python_shape_repr(valid);
      return out;
    }
    case Kind::DType: return "dtype " + dtype_name();
    case Kind::Str: return "string '" + *str + "'";
    default: return kind_name(kind);
  }
}

}  // namespace pypto_golden::sim
