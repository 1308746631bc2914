#include "validate/gate_common.h"

#include "tensor/float8.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <cmath>
#include <cstdio>

namespace pypto_golden {

at::Tensor gate_operand(const at::Tensor& t) {
  at::Tensor c = t.device().is_cpu() ? t : t.cpu();
  if (is_float8(c.scalar_type())) return c.to(at::kFloat).contiguous();  // exact
  return c.is_contiguous() ? c : c.contiguous();
}

namespace {

template <typename T>
bool nonzero(T v) {
  return load_f32(v) != 0.0f;
}
template <>
bool nonzero(double v) {
  return v != 0.0;
}
template <>
bool nonzero(int64_t v) {
  return v != 0;
}
template <>
bool nonzero(int32_t v) {
  return v != 0;
}

}  // namespace

int64_t count_nonzero(const at::Tensor& t, const Runs& runs) {
  if (runs.numel() == 0) return 0;
  std::atomic<int64_t> total{0};
  dispatch_gate_type(t.scalar_type(), "count_nonzero", [&](auto tag) {
    using T = decltype(tag);
    const T* data = t.const_data_ptr<T>();
    at::parallel_for(0, runs.numel(), 1 << 16, [&](int64_t begin, int64_t end) {
      int64_t local = 0;
      for_each_piece(runs, begin, end, [&](int64_t, int64_t at, int64_t n) {
        for (int64_t k = 0; k < n; ++k) local += nonzero(data[at + k]);
      });
      total += local;
    });
  });
  return total.load();
}

std::optional<std::string> select_valid_prefix(const at::Tensor& actual, const ValidPrefix& prefix, Runs& runs,
                                               std::vector<int64_t>& shape) {
  shape.assign(actual.sizes().begin(), actual.sizes().end());
  runs = Runs::whole(actual.numel());
  if (!prefix.valid_rows) return std::nullopt;
  const int64_t ndim = actual.dim();
  const int64_t axis = prefix.valid_axis < 0 ? prefix.valid_axis + ndim : prefix.valid_axis;
  if (axis < 0 || axis >= ndim)
    return "valid_axis=" + std::to_string(prefix.valid_axis) + " out of range for shape " +
           python_shape_repr(actual.sizes());
  const int64_t total = shape[axis];
  const int64_t rows = *prefix.valid_rows;
  if (rows < 0 || rows > total)
    return "valid_rows=" + std::to_string(rows) + " out of range for axis " + std::to_string(prefix.valid_axis) +
           " of length " + std::to_string(total);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (int64_t d = axis + 1; d < ndim; ++d) inner *= shape[d];
  if (prefix.zero_tail && rows < total) {
    Runs tail{outer, (total - rows) * inner, total * inner, rows * inner, nullptr};
    const int64_t nonzero_count = count_nonzero(actual, tail);
    if (nonzero_count) return "inactive tail contains " + std::to_string(nonzero_count) + " nonzero values";
  }
  runs = Runs{outer, rows * inner, total * inner, 0, nullptr};
  shape[axis] = rows;
  return std::nullopt;
}

void keep_first(std::vector<ListedPoint>& points, size_t limit) {
  std::sort(points.begin(), points.end(),
            [](const ListedPoint& x, const ListedPoint& y) { return x.index < y.index; });
  if (points.size() > limit) points.resize(limit);
}

std::string nonfinite_text(const NonFinite& n) {
  return "illegal values in comparison: actual: NaN=" + std::to_string(n.actual_nan) +
         " Inf=" + std::to_string(n.actual_inf) + "; expected: NaN=" + std::to_string(n.expected_nan) +
         " Inf=" + std::to_string(n.expected_inf);
}

std::string param_text(const std::string& text, double value) {
  return text.empty() ? python_float_repr(value) : text;
}

std::string error_count_text(int64_t bad, int64_t numel, double allowed_ratio, int64_t threshold) {
  return "error_count=" + std::to_string(bad) + "/" + std::to_string(numel) +
         " (ratio=" + format_percent4(static_cast<double>(bad) / static_cast<double>(numel)) +
         ", allowed<=" + format_percent4(allowed_ratio) + ", threshold=" + std::to_string(threshold) + " pts)";
}

void append_listed_points(GateLines& lines, const std::vector<ListedPoint>& points, const char* first,
                          const char* second) {
  lines.push_back("first " + std::to_string(points.size()) + " mismatches:");
  if (points.empty()) lines.emplace_back();
  for (const ListedPoint& p : points)
    lines.push_back("[" + std::to_string(p.index) + "] actual=" + format_g(p.actual, 8) +
                    ", expected=" + format_g(p.expected, 8) + ", " + first + "=" + format_g(p.first, 4) + ", " +
                    second + "=" + format_g(p.second, 4));
}

std::string unravel_text(int64_t flat, c10::IntArrayRef shape) { return python_shape_repr(unravel(flat, shape)); }

std::string shape_mismatch_text(const at::Tensor& actual, const at::Tensor& expected) {
  return "shape mismatch: actual " + python_shape_repr(actual.sizes()) + " vs expected " +
         python_shape_repr(expected.sizes());
}

bool gate_supports(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat: case c10::kDouble: case c10::kHalf: case c10::kBFloat16: case c10::kLong:
    case c10::kInt: case c10::kShort: case c10::kChar: case c10::kByte: case c10::kBool:
      return true;
    default:
      return false;
  }
}

}  // namespace pypto_golden
