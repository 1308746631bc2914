#include "sim/ops/op_result.h"

#include "sim/device.h"
#include "sim/tensor_copy.h"

namespace pypto_golden::sim::ops {

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
      if (elementwise && same_view(in, *dst_)) continue;
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

}  // namespace pypto_golden::sim::ops
