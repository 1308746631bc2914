// Where an op's result goes (new device memory, or straight into the window of
// `y[...] = op(...)`), and the adapters that turn one op implementation into an OpDef.
#pragma once

#include "sim/ops/op_table.h"
#include "sim/strided_view.h"
#include "sim/window.h"

#include <ATen/ATen.h>
#include <ATen/core/LegacyTypeDispatch.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace pypto_golden::sim::ops {

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
WrittenCorner as_into(const OpArgs& a, const at::Tensor& dst) {
  NoAutograd guard;
  Dest d(a, &dst);
  Value v = F(a, d);
  if (!d.used_dst()) return assign_value(v, dst);
  return {};
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

}  // namespace pypto_golden::sim::ops
