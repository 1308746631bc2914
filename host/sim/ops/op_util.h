// Helpers shared by the op families: argument access with clear messages, result
// allocation in device memory, and the "write straight into the destination" path.
#pragma once

#include "sim/kernel_error.h"
#include "sim/ops/op_table.h"
#include "sim/strided_view.h"
#include "sim/window.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/core/LegacyTypeDispatch.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace pypto_golden::sim::ops {

// PyPTO dtype name of an ATen type ("fp32"; ATen's own name for types PyPTO lacks).
std::string dtype_str(c10::ScalarType t);

// The op's `i`-th positional argument, else its keyword `name`; nullptr when neither was
// passed or the value is None.
const Value* param(const OpArgs& a, size_t i, const char* name);
// Keyword-only argument; nullptr when absent or None.
const Value* kwarg(const OpArgs& a, const char* name);
// As `param`, but a missing argument is a KernelError "pl.<op>: missing argument '<name>'".
const Value& required(const char* op, const OpArgs& a, size_t i, const char* name);

// Typed views of an argument; each throws KernelError "pl.<op>: <name> must be ..., got ...".
const Value& tensor_value(const char* op, const Value& v, const char* name);
int64_t int_value(const char* op, const Value& v, const char* name);
bool bool_value(const char* op, const Value& v, const char* name);
// A list/tuple of integer scalars (a single integer is a one-item list).
std::vector<int64_t> int_list(const char* op, const Value& v, const char* name);
// A dtype argument (`pl.FP32`); `name_out` receives the PyPTO name when given.
c10::ScalarType dtype_value(const char* op, const Value& v, const char* name, std::string* name_out = nullptr);
// An enum argument: the IR passes "PadValue.min"; returns "min". A bare "min" is accepted too.
std::string enum_member(const char* op, const Value& v, const char* enum_name);

void check_same_dtype(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b,
                      const char* b_name);
void check_float(const char* op, const at::Tensor& t, const char* name);
// Refuses the 8-bit floats, which only pl.cast, pl.matmul and data movement accept.
void check_vector_dtype(const char* op, const at::Tensor& t, const char* name);
// "pl.<op>: <name> must have rank >= n".
void check_rank_at_least(const char* op, const at::Tensor& t, const char* name, int64_t n);

// A new (uninitialised) tensor that outlives the op: in the device's memory when the op
// runs on a device.
at::Tensor new_tensor(const OpArgs& a, at::IntArrayRef shape, c10::ScalarType dtype);
// A device copy of `t` (contiguous).
at::Tensor copy_tensor(const OpArgs& a, const at::Tensor& t);

using pypto_golden::sim::shares_memory;  // sim/strided_view.h

// Where an op puts its result. Evaluated as a value, the result goes into new device
// memory; as the right side of `y[...] = op(...)` it goes straight into the window when it
// fits there whole.
class Dest {
 public:
  explicit Dest(const OpArgs& args, const at::Tensor* dst = nullptr) : args_(args), dst_(dst) {}
  // The tensor to compute a `shape` / `dtype` result into: the window when the shapes and
  // dtypes agree, the result is fully valid and no input shares memory with the window
  // (an elementwise op may read exactly the window it writes), else new device memory.
  at::Tensor out(at::IntArrayRef shape, c10::ScalarType dtype, std::initializer_list<at::Tensor> inputs = {},
                 bool elementwise = false, bool fully_valid = true);
  bool used_dst() const { return used_dst_; }
  const OpArgs& args() const { return args_; }

 private:
  const OpArgs& args_;
  const at::Tensor* dst_;
  bool used_dst_ = false;
};

using Impl = Value (*)(const OpArgs&, Dest&);

// OpDef adapters for an Impl: `fn` evaluates to a value; `into` writes the result into the
// window (directly when Dest allowed it, else its valid region through assign_value).
// Kernels never need autograd: ops run below the autograd and view-tracking dispatch keys,
// which makes the many small views and results of a kernel cheaper.
using NoAutograd = at::AutoDispatchBelowADInplaceOrView;

template <Impl F>
Value as_fn(const OpArgs& a) {
  NoAutograd guard;
  Dest d(a);
  return F(a, d);
}

template <Impl F>
bool as_into(const OpArgs& a, const at::Tensor& dst) {
  NoAutograd guard;
  Dest d(a, &dst);
  Value v = F(a, d);
  if (!d.used_dst()) assign_value(v, dst);
  return true;
}

// A plain op function run below autograd.
template <Value (*F)(const OpArgs&)>
Value guarded(const OpArgs& a) {
  NoAutograd guard;
  return F(a);
}

template <Impl F>
OpDef op_def(const char* name, int min_args, int max_args, std::vector<std::string> keywords = {}) {
  return OpDef{name, min_args, max_args, std::move(keywords), &as_fn<F>, &as_into<F>};
}

// The valid region of an elementwise result over operands `a` (and `b` of the same shape):
// the intersection of their regions (empty = fully valid).
std::vector<int64_t> merged_valid(const Value& a, const Value* b);

// Bounds of a dtype as doubles ("max"/"min" pad values, saturation).
double dtype_max(c10::ScalarType t);
double dtype_lowest(c10::ScalarType t);

// The pad value of `dtype` for a pad_value argument: "PadValue.zero/max/min" (max / min are the
// dtype's largest / most negative finite values) or the literals 0, inf, -inf.
c10::Scalar pad_scalar(const char* op, const Value& v, c10::ScalarType dtype);
// Fills everything outside the origin-anchored box `valid` of `t` with `value`.
void fill_outside(at::Tensor t, const std::vector<int64_t>& valid, const c10::Scalar& value);

}  // namespace pypto_golden::sim::ops
