// error_distribution: a measurement, not a gate. Builds the report the
// comparator prints; passes unless always_pass is false and the actual output has NaN / Inf.
//
//   [    illegal values in actual: NaN=a Inf=b]
//   rel-L2 = x.xxxx%  cosine = 0.xxxxxxx  numel=N
//     diff_thd=1e-03  frac>thd=x.xxxx%  worst=<.3g>          (one per threshold)
//     rel-diff percentiles: p50=<.3g>  p90=...  ...           (|a-e| / max(|a|, |e|, 1e-6))
//     abs-diff percentiles: ...
//     |golden| mean=<.4g>
//     |golden| percentiles: ...
//
// Float32 element math like the public harness; sums (norms, dot product, mean) accumulate
// in double. Percentiles are torch.quantile's linear interpolation over the finite values
// (no size limit); they need one float32 buffer of numel elements, reused for the three rows.
#pragma once

#include "validate/gate_common.h"

namespace pypto_golden {

struct ErrorDistributionOptions {
  std::vector<double> diff_thds{1e-3, 3e-3, 5e-3, 1e-2, 3e-2, 5e-2};
  std::vector<double> quantiles{0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};
  bool always_pass = true;
};

struct ErrorDistribution {
  GateResult result;
  std::string report;  // lines to print, each ending in '\n'
};

ErrorDistribution error_distribution(const at::Tensor& actual, const at::Tensor& expected,
                                     const ErrorDistributionOptions& options);

}  // namespace pypto_golden
