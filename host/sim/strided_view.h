// Views of device tensors made directly on the tensor's storage. The simulator cuts windows
// per op per loop iteration; going through ATen's narrow / select / as_strided operators
// costs a dispatcher round trip for each axis, which dominated small-tile kernels.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim {

// Whether a view shares in owning its storage. Each owner writes the storage's reference
// count when it is made and dropped, a cache line that the device's threads pass back and
// forth when all of them cut windows of one tensor. A Borrowed view does not: only for a
// storage that outlives every view made of it (Device::window_ownership).
enum class Ownership : bool { Shared, Borrowed };

// A view of `base`'s storage with the given geometry (no autograd tracking: simulator
// tensors never require grad). The caller guarantees the view stays inside the storage.
at::Tensor strided_view(const at::Tensor& base, at::IntArrayRef sizes, at::IntArrayRef strides,
                        int64_t storage_offset, Ownership ownership = Ownership::Shared);

// base[offset[0] : offset[0] + extent[0], ...] over the leading offset.size() axes; `base`
// itself when the window is the whole tensor. The caller has checked the bounds.
at::Tensor window_view(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extent,
                       Ownership ownership = Ownership::Shared);

// The [0, extent) corner of `base` over the leading extent.size() axes.
at::Tensor corner_view(const at::Tensor& base, at::IntArrayRef extent);

// base.transpose(axis1, axis2) (axes in range; negative ones count from the end), made directly.
at::Tensor transposed_view(const at::Tensor& base, int64_t axis1, int64_t axis2);

// Whether two tensors are the same view: one start, shape and strides (an elementwise op
// may then read each element it writes, as it writes it).
inline bool same_view(const at::Tensor& a, const at::Tensor& b) {
  return a.const_data_ptr() == b.const_data_ptr() && a.sizes().equals(b.sizes()) && a.strides().equals(b.strides());
}

// Whether two tensors may share memory: overlapping byte ranges (windows side by side in
// one tensor do not). Distinct buffers never overlap in the address space, so the ranges
// alone decide; two tensors sharing bytes copy-on-write count as sharing.
bool shares_memory(const at::Tensor& a, const at::Tensor& b);

}  // namespace pypto_golden::sim
