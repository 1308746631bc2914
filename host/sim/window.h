// Subscript windows: x[a:b, i] as a bounds-checked view of a device tensor, and writes of a
// value into such a window (only the value's valid region is written).
#pragma once

#include "sim/nodes.h"

#include <string>
#include <vector>

namespace pypto_golden::sim {

struct IndexItem {
  bool is_slice = true;
  ExprPtr lo;     // slice start (null = 0)
  ExprPtr hi;     // slice end (null = extent)
  ExprPtr index;  // integer index (drops the axis)
};

struct Window {
  at::Tensor view;
  bool all_indexed = false;  // every axis had an integer index: an element, not a window
  // Valid region of the window (empty = fully valid): the base's valid region shifted by
  // the slice starts and cut to the window; indexed axes are dropped.
  std::vector<int64_t> valid;
  // The window as a tensor value (carrying its valid region).
  Value value() const { return Value::from_tensor(view, valid); }
};

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
void assign_value(const Value& src, const at::Tensor& dst);

}  // namespace pypto_golden::sim
