// The default validation gate: |actual - expected| <= atol + rtol * |expected|, elementwise,
// in one parallel pass without full-size temporaries. NaN never matches; equal infinities do.
#pragma once

#include "validate/gate_common.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pypto_golden {

struct Mismatch {
  int64_t flat_index = 0;
  double actual = 0.0;
  double expected = 0.0;
};

struct AllcloseStats {
  int64_t numel = 0;
  int64_t mismatches = 0;
  std::vector<Mismatch> first;  // lowest flat indices first, at most `max_listed`
  // Greatest finite differences over all elements (index -1 when none is finite), lowest
  // index on ties, in the comparison's precision (float32 for float32 and the 16-bit floats).
  // The relative difference is |a - e| / |e| (inf where e = 0 and a != e).
  double max_abs_diff = 0.0;
  int64_t max_abs_index = -1;
  double max_rel_diff = 0.0;
  int64_t max_rel_index = -1;
};

// Counts mismatches of two tensors of equal shape and dtype.
AllcloseStats allclose_stats(const at::Tensor& actual, const at::Tensor& expected, double rtol,
                             double atol, size_t max_listed = 20);

// The default gate. Failure lines (gate_report.h indents them):
//   "Mismatched elements: 2/4  rtol=1e-05 atol=1e-05"
//   "Greatest absolute difference: ... at index (1,)"   (both only when a difference is finite)
//   "Greatest relative difference: ... at index (1,)"
//   "first 2 mismatches:"
//   "[1] actual=2.0, expected=3.0"
// A shape or dtype difference is a failure with its own line, never an exception.
GateResult allclose_check(const at::Tensor& actual, const at::Tensor& expected, double rtol, double atol);

// allclose_check's failure as one output's block of the run's report, headed
// "  '<name>' FAIL  shape=(4,) dtype=torch.float32" (output_failure_text).
GateResult allclose_gate(const std::string& name, const at::Tensor& actual,
                         const at::Tensor& expected, double rtol, double atol);

// "shape=(4,) dtype=torch.float32"
std::string shape_dtype_text(const at::Tensor& t);

}  // namespace pypto_golden
