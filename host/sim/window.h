// Subscript windows: x[a:b, i] as a bounds-checked view of a device tensor, and writes of a
// value into such a window (only the value's valid region is written).
//
// A slice may run past the end of its axis (x[t0:t0 + 16] on a tensor of 8 rows): PyPTO
// trusts such runtime bounds and the device clamps the view to the tensor. Here the view is
// clamped the same way; a read gives a tile of the full window whose part past the end is
// padding (outside the valid region, zero), and a write writes the value's valid region,
// which has to lie inside the tensor. A start past the end is an error.
#pragma once

#include "sim/nodes.h"

#include <c10/util/SmallVector.h>

#include <string>
#include <vector>

namespace pypto_golden::sim {

struct IndexItem {
  bool is_slice = true;
  ExprPtr lo;     // slice start (null = 0)
  ExprPtr hi;     // slice end (null = extent)
  ExprPtr index;  // integer index (drops the axis)
};

class Device;

struct Window {
  at::Tensor view;  // inside the tensor: clamped at its end when the window runs past it
  // The window's shape as written (empty = view's shape); set only when a slice runs past
  // the end of its axis, so `view` is smaller than the window.
  std::vector<int64_t> overhang_shape;
  bool all_indexed = false;  // every axis had an integer index: an element, not a window
  // Valid region of the window (empty = fully valid): the base's valid region shifted by
  // the slice starts and cut to the window; indexed axes are dropped.
  std::vector<int64_t> valid;
  bool overhangs() const { return !overhang_shape.empty(); }
  // The window as a tensor value (carrying its valid region): the view itself, or for a
  // window past the end a new tile on `device` (null = host memory) of the window's shape.
  // Moves the view and the region out of the window.
  Value value(Device* device) &&;
};

// Where `base[items]` lies in base's storage, before any view of it is made: the view's
// sizes and strides (cut at the tensor's end), its first element, the window's shape as
// written and its valid region. Throws KernelError when the window leaves the tensor.
struct WindowGeometry {
  int64_t offset = 0;
  c10::SmallVector<int64_t, 6> sizes, strides, shape, valid;
  bool overhang = false;     // a slice runs past the end of its axis
  bool whole = true;         // every item is a full slice: the window is the tensor itself
  bool all_indexed = false;  // every axis had an integer index: an element, not a window
};
WindowGeometry window_geometry(const Value& base, const std::vector<IndexItem>& items, Frame& frame,
                               const std::string& text);

// Resolves `tensor[items]`; `text` is the subscript's source text for messages. Throws
// KernelError when the window leaves the tensor.
Window resolve_window(const at::Tensor& tensor, const std::vector<IndexItem>& items,
                      Frame& frame, const std::string& text);
// The same on a tensor value: the window also gets the value's valid region cut to it.
Window resolve_window(const Value& base, const std::vector<IndexItem>& items, Frame& frame,
                      const std::string& text);

// `dst[...] = src` for a tensor value: writes src's valid region. The window must have the
// value's shape, or the shape of its valid region (then the whole window is written);
// dtypes must be equal. Throws KernelError naming both shapes / dtypes otherwise.
WrittenCorner assign_value(const Value& src, const at::Tensor& dst);
// `dst[...] = src` for a window: assign_value into the view, or for a window past the end,
// src (of the window's shape) writes its valid region, which must lie inside the tensor.
// The corner is of `w.view`.
WrittenCorner assign_to_window(const Value& src, const Window& w, const std::string& text);

}  // namespace pypto_golden::sim
