#include "validate/allclose.h"

#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace pypto_golden {
namespace {

// The closeness test in the precision torch.isclose uses for each dtype: float32 math for
// float32 (so thresholds match torch bit for bit), double for float64 and integers, and
// float32 for the 16-bit floats (read element by element, never copied to a float tensor).
template <typename T>
struct Precision { using type = float; };
template <> struct Precision<double> { using type = double; };
template <> struct Precision<int64_t> { using type = double; };
template <> struct Precision<int32_t> { using type = double; };
template <> struct Precision<int16_t> { using type = double; };
template <> struct Precision<int8_t> { using type = double; };
template <> struct Precision<uint8_t> { using type = double; };
template <> struct Precision<bool> { using type = double; };

template <typename T>
void scan(const at::Tensor& actual, const at::Tensor& expected, double rtol, double atol,
          size_t max_listed, AllcloseStats& out) {
  using C = typename Precision<T>::type;
  const T* a = actual.data_ptr<T>();
  const T* e = expected.data_ptr<T>();
  const C r = static_cast<C>(rtol), t = static_cast<C>(atol);
  std::mutex mu;
  at::parallel_for(0, out.numel, 1 << 16, [&](int64_t begin, int64_t end) {
    AllcloseStats local;
    for (int64_t k = begin; k < end; ++k) {
      const C x = static_cast<C>(a[k]);
      const C y = static_cast<C>(e[k]);
      const C diff = std::abs(x - y);
      const bool close = (x == y) || (std::isfinite(diff) && diff <= t + std::abs(r * y));
      if (std::isfinite(diff)) {
        if (diff > local.max_abs_diff || local.max_abs_index < 0) {
          local.max_abs_diff = diff;
          local.max_abs_index = k;
        }
        const double rel = y == 0 ? (diff == 0 ? 0.0 : INFINITY) : static_cast<double>(diff) / std::abs(static_cast<double>(y));
        if (rel > local.max_rel_diff || local.max_rel_index < 0) {
          local.max_rel_diff = rel;
          local.max_rel_index = k;
        }
      }
      if (close) continue;
      if (local.first.size() < max_listed) local.first.push_back({k, static_cast<double>(a[k]), static_cast<double>(e[k])});
      ++local.mismatches;
    }
    std::lock_guard<std::mutex> lock(mu);
    out.mismatches += local.mismatches;
    out.first.insert(out.first.end(), local.first.begin(), local.first.end());
    auto better = [](double v, int64_t i, double best, int64_t best_i) {
      return i >= 0 && (best_i < 0 || v > best || (v == best && i < best_i));
    };
    if (better(local.max_abs_diff, local.max_abs_index, out.max_abs_diff, out.max_abs_index)) {
      out.max_abs_diff = local.max_abs_diff;
      out.max_abs_index = local.max_abs_index;
    }
    if (better(local.max_rel_diff, local.max_rel_index, out.max_rel_diff, out.max_rel_index)) {
      out.max_rel_diff = local.max_rel_diff;
      out.max_rel_index = local.max_rel_index;
    }
  });
  std::sort(out.first.begin(), out.first.end(),
            [](const Mismatch& x, const Mismatch& y) { return x.flat_index < y.flat_index; });
  if (out.first.size() > max_listed) out.first.resize(max_listed);
}

std::string element_text(double v, c10::ScalarType dtype) {
  if (dtype == at::kBool) return v != 0 ? "True" : "False";
  if (at::isIntegralType(dtype, false)) return std::to_string(static_cast<int64_t>(v));
  return python_float_repr(v);
}

std::string index_text(int64_t flat, c10::IntArrayRef shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return python_shape_repr(idx);
}

}  // namespace

AllcloseStats allclose_stats(const at::Tensor& actual_in, const at::Tensor& expected_in, double rtol,
                             double atol, size_t max_listed) {
  at::Tensor actual = actual_in.contiguous();
  at::Tensor expected = expected_in.contiguous();
  AllcloseStats stats;
  stats.numel = actual.numel();
  if (stats.numel == 0) return stats;
  switch (actual.scalar_type()) {
    case at::kFloat: scan<float>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kDouble: scan<double>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kHalf: scan<c10::Half>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kBFloat16: scan<c10::BFloat16>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kLong: scan<int64_t>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kInt: scan<int32_t>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kShort: scan<int16_t>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kChar: scan<int8_t>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kByte: scan<uint8_t>(actual, expected, rtol, atol, max_listed, stats); break;
    case at::kBool: scan<bool>(actual, expected, rtol, atol, max_listed, stats); break;
    default:
      throw std::invalid_argument("allclose: unsupported dtype " + torch_dtype_repr(actual.scalar_type()));
  }
  return stats;
}

std::string shape_dtype_text(const at::Tensor& t) {
  return "shape=" + python_shape_repr(t.sizes()) + " dtype=" + torch_dtype_repr(t.scalar_type());
}

GateResult allclose_gate(const std::string& name, const at::Tensor& actual, const at::Tensor& expected,
                         double rtol, double atol) {
  GateResult r;
  const std::string head = "  '" + name + "' FAIL  " + shape_dtype_text(actual) + "\n";
  if (!actual.sizes().equals(expected.sizes())) {
    r.detail = head + "    shape mismatch: actual " + python_shape_repr(actual.sizes()) + " vs expected " +
               python_shape_repr(expected.sizes());
    return r;
  }
  if (actual.scalar_type() != expected.scalar_type()) {
    r.detail = head + "    dtype mismatch: actual " + torch_dtype_repr(actual.scalar_type()) +
               " vs expected " + torch_dtype_repr(expected.scalar_type());
    return r;
  }
  AllcloseStats s = allclose_stats(actual, expected, rtol, atol);
  if (s.mismatches == 0) {
    r.passed = true;
    return r;
  }
  const auto dtype = actual.scalar_type();
  std::string d = head + "    Mismatched elements: " + std::to_string(s.mismatches) + "/" +
                  std::to_string(s.numel) + "  rtol=" + python_float_repr(rtol) +
                  " atol=" + python_float_repr(atol) + "\n";
  if (s.max_abs_index >= 0) {
    d += "    Greatest absolute difference: " + python_float_repr(s.max_abs_diff) + " at index " +
         index_text(s.max_abs_index, actual.sizes()) + "\n";
    d += "    Greatest relative difference: " + python_float_repr(s.max_rel_diff) + " at index " +
         index_text(s.max_rel_index, actual.sizes()) + "\n";
  }
  d += "    first " + std::to_string(s.first.size()) + " mismatches:";
  for (const auto& m : s.first)
    d += "\n    [" + std::to_string(m.flat_index) + "] actual=" + element_text(m.actual, dtype) +
         ", expected=" + element_text(m.expected, dtype);
  r.detail = d;
  return r;
}

}  // namespace pypto_golden
