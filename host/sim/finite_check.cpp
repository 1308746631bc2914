#include "sim/finite_check.h"

#include "sim/device.h"
#include "sim/kernel_error.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <cmath>

namespace pypto_golden::sim {
namespace {

// Whether the value's valid region holds a non-finite element; `index` gets the first one's.
bool has_non_finite(const Value& v, std::vector<int64_t>* index) {
  if (!v.is_tensor() || !at::isFloatingType(v.tensor.scalar_type()) || v.tensor.numel() == 0) return false;
  const at::Tensor region = v.valid_view();
  const at::Tensor bad = at::isfinite(region).logical_not().flatten();
  if (!bad.any().item<bool>()) return false;
  int64_t flat = bad.nonzero()[0][0].item<int64_t>();
  if (index) {
    index->assign(static_cast<size_t>(region.dim()), 0);
    for (int64_t d = region.dim() - 1; d >= 0; --d) {
      (*index)[static_cast<size_t>(d)] = flat % region.size(d);
      flat /= region.size(d);
    }
  }
  return true;
}

}  // namespace

bool finite_check_on(const OpArgs& args) { return args.device && args.device->options().nan_check; }

void check_finite_result(const OpArgs& args, const Value& result) {
  // An op that writes into one of its inputs (assemble, store, matmul_acc, gather_row)
  // returns that tensor: other tasks may be writing other parts of it, and what this op wrote
  // was checked when its source was made, so its result is not checked.
  if (!result.is_tensor()) return;
  for (const Value& in : args.positional)
    if (in.is_tensor() && in.tensor.is_alias_of(result.tensor)) return;
  std::vector<int64_t> index;
  if (!has_non_finite(result, &index)) return;
  for (const Value& in : args.positional)
    if (has_non_finite(in, nullptr)) return;
  for (const auto& kw : args.keywords)
    if (has_non_finite(kw.second, nullptr)) return;
  const at::Tensor region = result.valid_view();
  std::vector<at::indexing::TensorIndex> at_index(index.begin(), index.end());
  const double bad = region.index(at_index).item<double>();
  throw KernelError(std::string("pl.") + args.op + " produced " + (std::isnan(bad) ? "NaN" : bad > 0 ? "inf" : "-inf") +
                    " at index " + python_shape_repr(index) + " of its " + python_shape_repr(result.tensor.sizes()) +
                    " result from inputs that are all finite (PYPTO_SIM_NAN_CHECK)");
}

}  // namespace pypto_golden::sim
