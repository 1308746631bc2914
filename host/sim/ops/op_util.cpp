#include "sim/ops/op_util.h"

#include "sim/device.h"
#include "sim/tensor_copy.h"
#include "tensor/dtype_names.h"
#include "tensor/float8.h"
#include "tensor/python_repr.h"


#include <cmath>
#include <limits>

namespace pypto_golden::sim::ops {

std::string dtype_str(c10::ScalarType t) {
  try {
    return pypto_name(t);
  } catch (const std::exception&) {
    return c10::toString(t);
  }
}

const Value* param(const OpArgs& a, size_t i, const char* name) {
  const Value* v = i < a.positional.size() ? &a.positional[i] : a.keyword(name);
  if (!v || v->kind == Value::Kind::None) return nullptr;
  return v;
}

const Value* kwarg(const OpArgs& a, const char* name) {
  const Value* v = a.keyword(name);
  if (!v || v->kind == Value::Kind::None) return nullptr;
  return v;
}

const Value& required(const char* op, const OpArgs& a, size_t i, const char* name) {
  const Value* v = param(a, i, name);
  if (!v) throw KernelError(std::string("pl.") + op + ": missing argument '" + name + "'");
  return *v;
}

const Value& tensor_value(const char* op, const Value& v, const char* name) {
  if (!v.is_tensor())
    throw KernelError(std::string("pl.") + op + ": " + name + " must be a tensor, got " + v.describe());
  return v;
}

int64_t int_value(const char* op, const Value& v, const char* name) {
  if (v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool) return v.i;
  throw KernelError(std::string("pl.") + op + ": " + name + " must be an integer, got " + v.describe());
}

bool bool_value(const char* op, const Value& v, const char* name) {
  if (v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool) return v.i != 0;
  throw KernelError(std::string("pl.") + op + ": " + name + " must be a bool, got " + v.describe());
}

std::vector<int64_t> int_list(const char* op, const Value& v, const char* name) {
  if (v.kind == Value::Kind::Int) return {v.i};
  if (v.kind != Value::Kind::List && v.kind != Value::Kind::Tuple)
    throw KernelError(std::string("pl.") + op + ": " + name + " must be a list of integers, got " + v.describe());
  std::vector<int64_t> out;
  out.reserve(v.items->size());
  for (const auto& item : *v.items) {
    if (item.kind != Value::Kind::Int)
      throw KernelError(std::string("pl.") + op + ": " + name + " must be a list of integers, but an item is " +
                        item.describe());
    out.push_back(item.i);
  }
  return out;
}

c10::ScalarType dtype_value(const char* op, const Value& v, const char* name, std::string* name_out) {
  if (v.kind != Value::Kind::DType)
    throw KernelError(std::string("pl.") + op + ": " + name + " must be a dtype (pl.FP32, ...), got " +
                      v.describe());
  if (name_out) *name_out = v.dtype_name();
  return v.stype;
}

std::string enum_member(const char* op, const Value& v, const char* enum_name) {
  if (v.kind != Value::Kind::Str)
    throw KernelError(std::string("pl.") + op + ": expected a pl." + enum_name + " member, got " + v.describe());
  const std::string& s = *v.str;
  const std::string prefix = std::string(enum_name) + ".";
  if (s.rfind(prefix, 0) == 0) return s.substr(prefix.size());
  if (s.find('.') != std::string::npos)
    throw KernelError(std::string("pl.") + op + ": expected a pl." + enum_name + " member, got " + s);
  return s;
}

void check_same_dtype(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b,
                      const char* b_name) {
  if (a.scalar_type() != b.scalar_type())
    throw KernelError(std::string("pl.") + op + ": " + a_name + " is " + dtype_str(a.scalar_type()) + " but " +
                      b_name + " is " + dtype_str(b.scalar_type()) +
                      "; PyPTO has no implicit promotion, convert one side with pl.cast");
}

void check_vector_dtype(const char* op, const at::Tensor& t, const char* name) {
  if (is_float8(t.scalar_type()))
    throw KernelError(std::string("pl.") + op + ": " + name + " is " + dtype_str(t.scalar_type()) +
                      ", which the vector unit does not compute on (fp8 tiles go to pl.matmul or "
                      "pl.cast); pl.cast it to fp32, fp16 or bfloat16 first");
}

void check_float(const char* op, const at::Tensor& t, const char* name) {
  if (!at::isFloatingType(t.scalar_type()))
    throw KernelError(std::string("pl.") + op + ": " + name + " must be a float tensor (fp32, fp16, bfloat16), got " +
                      dtype_str(t.scalar_type()));
}

void check_rank_at_least(const char* op, const at::Tensor& t, const char* name, int64_t n) {
  if (t.dim() < n)
    throw KernelError(std::string("pl.") + op + ": " + name + " must have rank >= " + std::to_string(n) +
                      ", got shape " + python_shape_repr(t.sizes()));
}

at::Tensor new_tensor(const OpArgs& a, at::IntArrayRef shape, c10::ScalarType dtype) {
  if (a.device) return a.device->allocate(shape, dtype);
  return at::empty(shape, at::TensorOptions().dtype(dtype));
}

at::Tensor copy_tensor(const OpArgs& a, const at::Tensor& t) {
  at::Tensor out = new_tensor(a, t.sizes(), t.scalar_type());
  copy_values(out, t);
  return out;
}

at::Tensor Dest::out(at::IntArrayRef shape, c10::ScalarType dtype, std::initializer_list<at::Tensor> inputs,
                     bool elementwise, bool fully_valid) {
  if (dst_ && fully_valid && dst_->scalar_type() == dtype && dst_->sizes().equals(shape)) {
    bool ok = true;
    for (const auto& in : inputs) {
      if (!in.defined()) continue;
      if (!shares_memory(*dst_, in)) continue;
      // An elementwise op may read exactly the elements it writes (same start and layout).
      if (elementwise && in.data_ptr() == dst_->data_ptr() && in.strides().equals(dst_->strides()) &&
          in.sizes().equals(dst_->sizes()))
        continue;
      ok = false;
      break;
    }
    if (ok) {
      used_dst_ = true;
      return *dst_;
    }
  }
  return new_tensor(args_, shape, dtype);
}

std::vector<int64_t> merged_valid(const Value& a, const Value* b) {
  if (a.fully_valid() && (!b || !b->is_tensor() || b->fully_valid())) return {};
  std::vector<int64_t> v = a.valid_shape();
  if (b && b->is_tensor() && !b->fully_valid() && b->tensor.sizes().equals(a.tensor.sizes())) {
    std::vector<int64_t> w = b->valid;
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::min(v[k], w[k]);
  }
  return v;
}

double dtype_max(c10::ScalarType t) {
  switch (t) {
    case at::kFloat: return std::numeric_limits<float>::max();
    case at::kHalf: return 65504.0;
    case at::kBFloat16: return static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
    case at::kDouble: return std::numeric_limits<double>::max();
    case at::kChar: return 127.0;
    case at::kByte: return 255.0;
    case at::kShort: return 32767.0;
    case at::kInt: return 2147483647.0;
    case at::kLong: return 9223372036854775807.0;
    case at::kBool: return 1.0;
    default: break;
  }
  throw KernelError("no maximum for dtype " + dtype_str(t));
}

double dtype_lowest(c10::ScalarType t) {
  switch (t) {
    case at::kFloat: return std::numeric_limits<float>::lowest();
    case at::kHalf: return -65504.0;
    case at::kBFloat16: return static_cast<double>(std::numeric_limits<c10::BFloat16>::lowest());
    case at::kDouble: return std::numeric_limits<double>::lowest();
    case at::kChar: return -128.0;
    case at::kByte: return 0.0;
    case at::kShort: return -32768.0;
    case at::kInt: return -2147483648.0;
    case at::kLong: return -9223372036854775808.0;
    case at::kBool: return 0.0;
    default: break;
  }
  throw KernelError("no minimum for dtype " + dtype_str(t));
}

// Pad value for the padding of a partial region: "PadValue.zero/max/min" or 0 / +-inf.
c10::Scalar pad_scalar(const char* op, const Value& v, c10::ScalarType dtype) {
  std::string mode;
  if (v.kind == Value::Kind::Str) {
    mode = ops::enum_member(op, v, "PadValue");
  } else if (v.kind == Value::Kind::Int && v.i == 0) {
    mode = "zero";
  } else if (v.kind == Value::Kind::Float && v.f == 0.0) {
    mode = "zero";
  } else if (v.kind == Value::Kind::Float && std::isinf(v.f)) {
    mode = v.f > 0 ? "max" : "min";
  } else {
    throw KernelError(std::string("pl.") + op + ": pad_value must be pl.PadValue.zero / max / min (or 0, math.inf, "
                      "-math.inf), got " + v.describe());
  }
  const bool is_float = at::isFloatingType(dtype);
  if (mode == "zero" || mode == "null") return is_float ? c10::Scalar(0.0) : c10::Scalar(int64_t(0));
  if (mode == "max")
    return is_float ? c10::Scalar(ops::dtype_max(dtype)) : c10::Scalar(static_cast<int64_t>(ops::dtype_max(dtype)));
  if (mode == "min")
    return is_float ? c10::Scalar(ops::dtype_lowest(dtype)) : c10::Scalar(static_cast<int64_t>(ops::dtype_lowest(dtype)));
  throw KernelError(std::string("pl.") + op + ": unknown pad value PadValue." + mode + " (zero, max, min)");
}

// Fills everything outside the origin-anchored box `valid` of `t` with `value`.
void fill_outside(at::Tensor t, const std::vector<int64_t>& valid, const c10::Scalar& value) {
  for (int64_t k = 0; k < t.dim(); ++k) {
    const int64_t v = valid[static_cast<size_t>(k)];
    if (v >= t.size(k)) continue;
    at::Tensor slab = t;
    for (int64_t j = 0; j < k; ++j) slab = slab.narrow(j, 0, valid[static_cast<size_t>(j)]);
    slab.narrow(k, v, t.size(k) - v).fill_(value);
  }
}

}  // namespace pypto_golden::sim::ops
