// Subscript windows: x[a:b, i] as a bounds-checked view of a device tensor.
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
};

// Resolves `tensor[items]`; `text` is the subscript's source text for messages. Throws
// KernelError when the window leaves the tensor.
Window resolve_window(const at::Tensor& tensor, const std::vector<IndexItem>& items,
                      Frame& frame, const std::string& text);

}  // namespace pypto_golden::sim
