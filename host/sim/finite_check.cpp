#include "sim/finite_check.h"

#include "sim/device.h"
#include "sim/kernel_error.h"
#include "tensor/flat_index.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <cmath>

namespace pypto_golden::sim {
namespace {

// The first non-finite element of the value's valid region: its flat index and value.
struct NonFinite {
  int64_t flat = -1;
  double value = 0.0;
};

NonFinite first_non_finite(const Value& v) {
  if (!v.is_tensor() || !at::isFloatingType(v.tensor.scalar_type()) || v.tensor.numel() == 0) return {};
  const at::Tensor region = v.valid_view().flatten();
  const at::Tensor bad = at::isfinite(region).logical_not();
  if (!bad.any().item<bool>()) return {};
  const int64_t flat = bad.nonzero()[0][0].item<int64_t>();
  return {flat, region[flat].item<double>()};
}

}  // namespace

bool finite_check_on(const OpArgs& args) { return finite_check_on(args.device); }

bool finite_check_on(const Device* device) { return device && device->options().nan_check; }

void check_finite_result(const OpArgs& args, const Value& result) {
  // An op that writes into one of its inputs (assemble, store, matmul_acc, gather_row)
  // returns that tensor: other tasks may be writing other parts of it, and what this op wrote
  // was checked when its source was made, so its result is not checked.
  if (!result.is_tensor()) return;
  for (const Value& in : args.positional)
    if (in.is_tensor() && in.tensor.is_alias_of(result.tensor)) return;
  const NonFinite found = first_non_finite(result);
  if (found.flat < 0) return;
  for (const Value& in : args.positional)
    if (first_non_finite(in).flat >= 0) return;
  for (const auto& kw : args.keywords)
    if (first_non_finite(kw.second).flat >= 0) return;
  const double bad = found.value;
  const std::vector<int64_t> index = unravel(found.flat, result.valid_view().sizes());
  throw KernelError(std::string("pl.") + args.op + " produced " + (std::isnan(bad) ? "NaN" : bad > 0 ? "inf" : "-inf") +
                    " at index " + python_shape_repr(index) + " of its " + python_shape_repr(result.tensor.sizes()) +
                    " result from inputs that are all finite (PYPTO_SIM_NAN_CHECK)");
}

}  // namespace pypto_golden::sim
