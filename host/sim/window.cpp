#include "sim/window.h"

#include "sim/kernel_error.h"
#include "tensor/python_repr.h"

namespace pypto_golden::sim {

Window resolve_window(const at::Tensor& tensor, const std::vector<IndexItem>& items,
                      Frame& frame, const std::string& text) {
  const int64_t rank = tensor.dim();
  if (static_cast<int64_t>(items.size()) > rank)
    throw KernelError(text + " has " + std::to_string(items.size()) + " indices but the tensor has rank " +
                      std::to_string(rank) + " " + python_shape_repr(tensor.sizes()));
  Window w;
  w.view = tensor;
  w.all_indexed = static_cast<int64_t>(items.size()) == rank;
  int64_t axis = 0;  // axis of w.view being cut next
  for (size_t k = 0; k < items.size(); ++k) {
    const IndexItem& item = items[k];
    const int64_t extent = tensor.size(static_cast<int64_t>(k));
    if (item.is_slice) {
      w.all_indexed = false;
      int64_t lo = item.lo ? item.lo->eval(frame).as_int("a slice start") : 0;
      int64_t hi = item.hi ? item.hi->eval(frame).as_int("a slice end") : extent;
      if (lo < 0 || hi > extent || lo > hi)
        throw KernelError(text + " is outside its tensor: axis " + std::to_string(k) + " asks for [" +
                          std::to_string(lo) + ":" + std::to_string(hi) + "] but the extent is " +
                          std::to_string(extent) + " (shape " + python_shape_repr(tensor.sizes()) + ")");
      w.view = w.view.narrow(axis, lo, hi - lo);
      ++axis;
    } else {
      int64_t i = item.index->eval(frame).as_int("an index");
      if (i < 0 || i >= extent)
        throw KernelError(text + " is outside its tensor: axis " + std::to_string(k) + " index " +
                          std::to_string(i) + " but the extent is " + std::to_string(extent) +
                          " (shape " + python_shape_repr(tensor.sizes()) + ")");
      w.view = w.view.select(axis, i);
    }
  }
  return w;
}

}  // namespace pypto_golden::sim
