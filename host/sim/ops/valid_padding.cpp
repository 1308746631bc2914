#include "sim/ops/valid_padding.h"

#include "sim/ops/operand_checks.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

namespace pypto_golden::sim::ops {

std::vector<int64_t> merged_valid(const Value& a, const Value* b) {
  if (a.fully_valid() && (!b || !b->is_tensor() || b->fully_valid())) return {};
  std::vector<int64_t> v = a.valid_shape();
  if (b && b->is_tensor() && !b->fully_valid() && b->tensor.sizes().equals(a.tensor.sizes())) {
    std::vector<int64_t> w = b->valid;
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::min(v[k], w[k]);
  }
  return v;
}

c10::Scalar pad_scalar(const OpArgs& a, const Value& v, c10::ScalarType dtype) {
  std::string mode;
  if (v.kind == Value::Kind::Str) {
    mode = a.as_enum_member(v, "PadValue");
  } else if (v.kind == Value::Kind::Int && v.i == 0) {
    mode = "zero";
  } else if (v.kind == Value::Kind::Float && v.f == 0.0) {
    mode = "zero";
  } else if (v.kind == Value::Kind::Float && std::isinf(v.f)) {
    mode = v.f > 0 ? "max" : "min";
  } else {
    a.fail("pad_value must be pl.PadValue.zero / max / min (or 0, math.inf, -math.inf), got " + v.describe());
  }
  const bool is_float = at::isFloatingType(dtype);
  if (mode == "zero" || mode == "null") return is_float ? c10::Scalar(0.0) : c10::Scalar(int64_t(0));
  if (mode == "max")
    return is_float ? c10::Scalar(dtype_max(dtype)) : c10::Scalar(static_cast<int64_t>(dtype_max(dtype)));
  if (mode == "min")
    return is_float ? c10::Scalar(dtype_lowest(dtype)) : c10::Scalar(static_cast<int64_t>(dtype_lowest(dtype)));
  a.fail("unknown pad value PadValue." + mode + " (zero, max, min)");
}

namespace {

// fill_outside for a dense row-major FP32 matrix, without ATen's per-slab dispatch (a tile
// past a tensor's end is padded once per window). The value converts as fill_ converts it.
bool fill_outside_fp32_rows(const at::Tensor& t, const std::vector<int64_t>& valid, const c10::Scalar& value) {
  if (t.dim() != 2 || t.scalar_type() != at::kFloat || !t.is_contiguous() || valid.size() != 2 || valid[0] < 0 ||
      valid[1] < 0)
    return false;
  const int64_t rows = t.size(0), cols = t.size(1);
  const int64_t valid_rows = std::min(valid[0], rows), valid_cols = std::min(valid[1], cols);
  const float v = value.to<float>();
  float* p = t.data_ptr<float>();
  if (valid_cols < cols)
    for (int64_t r = 0; r < valid_rows; ++r) std::fill(p + r * cols + valid_cols, p + (r + 1) * cols, v);
  std::fill(p + valid_rows * cols, p + rows * cols, v);
  return true;
}

}  // namespace

void fill_outside(at::Tensor t, const std::vector<int64_t>& valid, const c10::Scalar& value) {
  if (fill_outside_fp32_rows(t, valid, value)) return;
  for (int64_t k = 0; k < t.dim(); ++k) {
    const int64_t v = valid[static_cast<size_t>(k)];
    if (v >= t.size(k)) continue;
    at::Tensor slab = t;
    for (int64_t j = 0; j < k; ++j) slab = slab.narrow(j, 0, valid[static_cast<size_t>(j)]);
    slab.narrow(k, v, t.size(k) - v).fill_(value);
  }
}

}  // namespace pypto_golden::sim::ops
