#include "sim/window.h"

#include "sim/device.h"
#include "sim/kernel_error.h"
#include "sim/strided_view.h"
#include "sim/tensor_copy.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zero.h>
#include <c10/util/SmallVector.h>

#include <algorithm>
#include <utility>

namespace pypto_golden::sim {

Window resolve_window(const at::Tensor& tensor, const std::vector<IndexItem>& items,
                      Frame& frame, const std::string& text) {
  return resolve_window(Value::from_tensor(tensor), items, frame, text);
}

WindowGeometry window_geometry(const Value& base, const std::vector<IndexItem>& items, Frame& frame,
                               const std::string& text) {
  const at::Tensor& tensor = base.tensor;
  const int64_t rank = tensor.dim();
  if (static_cast<int64_t>(items.size()) > rank)
    throw KernelError(text + " has " + std::to_string(items.size()) + " indices but the tensor has rank " +
                      std::to_string(rank) + " " + python_shape_repr(tensor.sizes()));
  WindowGeometry g;  // built axis by axis, on the stack: a window is cut per op
  g.all_indexed = static_cast<int64_t>(items.size()) == rank;
  g.offset = tensor.storage_offset();
  for (size_t k = 0; k < items.size(); ++k) {
    const IndexItem& item = items[k];
    const int64_t extent = tensor.size(static_cast<int64_t>(k));
    const int64_t stride = tensor.stride(static_cast<int64_t>(k));
    const int64_t base_valid = base.fully_valid() ? extent : base.valid[k];
    if (item.is_slice) {
      g.all_indexed = false;
      int64_t lo = item.lo ? eval_int(*item.lo, frame, "a slice start") : 0;
      int64_t hi = item.hi ? eval_int(*item.hi, frame, "a slice end") : extent;
      if (lo < 0 || lo > extent || lo > hi)
        throw KernelError(text + " is outside its tensor: axis " + std::to_string(k) + " asks for [" +
                          std::to_string(lo) + ":" + std::to_string(hi) + "] but the extent is " +
                          std::to_string(extent) + " (shape " + python_shape_repr(tensor.sizes()) + ")");
      const int64_t inside = std::min(hi, extent) - lo;
      g.overhang = g.overhang || hi > extent;
      g.whole = g.whole && lo == 0 && hi == extent;
      g.offset += lo * stride;
      g.sizes.push_back(inside);
      g.strides.push_back(stride);
      g.shape.push_back(hi - lo);
      g.valid.push_back(std::clamp<int64_t>(base_valid - lo, 0, inside));
    } else {
      int64_t i = eval_int(*item.index, frame, "an index");
      if (i < 0 || i >= extent)
        throw KernelError(text + " is outside its tensor: axis " + std::to_string(k) + " index " +
                          std::to_string(i) + " but the extent is " + std::to_string(extent) +
                          " (shape " + python_shape_repr(tensor.sizes()) + ")");
      g.whole = false;
      g.offset += i * stride;
    }
  }
  for (int64_t k = static_cast<int64_t>(items.size()); k < rank; ++k) {
    g.sizes.push_back(tensor.size(k));
    g.strides.push_back(tensor.stride(k));
    g.shape.push_back(tensor.size(k));
    g.valid.push_back(base.fully_valid() ? tensor.size(k) : base.valid[static_cast<size_t>(k)]);
  }
  return g;
}

Window resolve_window(const Value& base, const std::vector<IndexItem>& items, Frame& frame,
                      const std::string& text) {
  const WindowGeometry g = window_geometry(base, items, frame, text);
  const at::Tensor& tensor = base.tensor;
  Window w;
  w.all_indexed = g.all_indexed;
  w.view = g.whole ? tensor
                   : strided_view(tensor, g.sizes, g.strides, g.offset, window_ownership(frame.device, tensor));
  if (w.all_indexed) return w;
  if (g.overhang) w.overhang_shape.assign(g.shape.begin(), g.shape.end());
  if (g.valid != g.shape) w.valid.assign(g.valid.begin(), g.valid.end());
  return w;
}

Value Window::value(Device* device) && {
  if (!overhangs()) return Value::from_tensor(std::move(view), std::move(valid));
  const at::TensorOptions opts = at::TensorOptions().dtype(view.scalar_type());
  at::Tensor tile = device ? device->allocate(overhang_shape, view.scalar_type()) : at::empty(overhang_shape, opts);
  {
    at::AutoDispatchBelowADInplaceOrView no_autograd;
    tile.zero_();
    copy_values(corner_view(tile, view.sizes().vec()), view);
  }
  return Value::from_tensor(std::move(tile), std::move(valid));
}

WrittenCorner assign_to_window(const Value& src, const Window& w, const std::string& text) {
  if (!w.overhangs()) return assign_value(src, w.view);
  const at::Tensor& t = src.as_tensor("the value written");
  if (!t.sizes().equals(w.overhang_shape))
    throw KernelError("the value written has shape " + python_shape_repr(t.sizes()) + " but the window has shape " +
                      python_shape_repr(w.overhang_shape));
  const std::vector<int64_t> region = src.valid_shape();
  for (size_t k = 0; k < region.size(); ++k) {
    const int64_t inside = w.view.size(static_cast<int64_t>(k));
    if (region[k] > inside)
      throw KernelError(text + " writes past the end of its tensor: axis " + std::to_string(k) + " of the window " +
                        python_shape_repr(w.overhang_shape) + " has " + std::to_string(inside) +
                        " inside the tensor, but the value written has " + std::to_string(region[k]) +
                        " valid there (valid region " + python_shape_repr(region) +
                        "); narrow it with pl.set_validshape, or slice the window inside the tensor");
  }
  assign_value(Value::from_tensor(corner_view(t, region)), corner_view(w.view, region));
  return region;
}

WrittenCorner assign_value(const Value& v, const at::Tensor& dst) {
  const at::Tensor& src = v.as_tensor("the value written");
  if (src.scalar_type() != dst.scalar_type())
    throw KernelError("the value written is " + pypto_name(src.scalar_type()) + " but the tensor is " +
                      pypto_name(dst.scalar_type()) + "; convert it with pl.cast first");
  at::AutoDispatchBelowADInplaceOrView no_autograd;
  if (v.fully_valid()) {
    if (!src.sizes().equals(dst.sizes()))
      throw KernelError("the value written has shape " + python_shape_repr(src.sizes()) +
                        " but the window has shape " + python_shape_repr(dst.sizes()));
    copy_values(dst, src);
    return {};
  }
  at::Tensor region = v.valid_view();
  if (region.sizes().equals(dst.sizes())) {  // the window is the valid region
    copy_values(dst, region);
    return {};
  }
  if (!src.sizes().equals(dst.sizes()))
    throw KernelError("the value written has shape " + python_shape_repr(src.sizes()) + " (valid region " +
                      python_shape_repr(v.valid) + ") but the window has shape " +
                      python_shape_repr(dst.sizes()));
  copy_values(corner_view(dst, v.valid), region);
  return v.valid;
}

}  // namespace pypto_golden::sim
