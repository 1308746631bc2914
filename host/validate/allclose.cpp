// First, so that every function of this file, inline ones included, has the same options
// (see PYPTO_GATE_KERNEL in gate_common.h).
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#include "validate/allclose.h"

#include "validate/gate_scan.h"

#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

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

template <typename C, typename T>
inline C load_as(T v) {
  if constexpr (std::is_same_v<C, float>) return load_f32(v);
  else return static_cast<C>(v);
}

// One element: its closeness and its candidate differences (-1 when |a - e| is not finite).
template <typename C>
struct Element {
  bool close;
  C abs_diff;
  C rel_diff;
};

template <typename C>
inline Element<C> element(C x, C y, C rtol, C atol) {
  const C inf = std::numeric_limits<C>::infinity();
  const C d = std::abs(x - y);
  const bool finite = d < inf;  // false for NaN
  const bool close = (x == y) | (finite & (d <= atol + std::abs(rtol * y)));
  C rel = d / std::abs(y);
  rel = d == C(0) ? C(0) : rel;
  return {close, finite ? d : C(-1), finite ? rel : C(-1)};
}

template <typename C>
struct BlockSummary {
  int32_t bad;
  C max_abs;
  C max_rel;
};

template <typename C, typename T>
PYPTO_GATE_KERNEL BlockSummary<C> block_pass(const T* __restrict pa, const T* __restrict pe, int64_t m, C rtol, C atol) {
  int32_t bad = 0;
  C max_abs = C(-1), max_rel = C(-1);
#pragma omp simd reduction(+ : bad) reduction(max : max_abs, max_rel)
  for (int64_t i = 0; i < m; ++i) {
    const Element<C> el = element<C>(load_as<C>(pa[i]), load_as<C>(pe[i]), rtol, atol);
    bad += el.close ? 0 : 1;
    max_abs = max_abs > el.abs_diff ? max_abs : el.abs_diff;
    max_rel = max_rel > el.rel_diff ? max_rel : el.rel_diff;
  }
  return {bad, max_abs, max_rel};
}

// Per chunk: the mismatch count, the first listed mismatches and the greatest differences.
template <typename C>
struct AllcloseScan {
  int64_t mismatches = 0;
  std::vector<Mismatch> first;
  BestAt<C> abs, rel;  // value -1: no finite difference yet
};

// One parallel pass: per block of kGateBlock elements a vectorised reduction (mismatch count,
// greatest differences); the block is rescanned (from L1) only to list its first mismatches
// or to locate a new greatest difference.
template <typename T>
void scan(const T* a, const T* e, double rtol_in, double atol_in, size_t max_listed, AllcloseStats& out) {
  using C = typename Precision<T>::type;
  const C rtol = static_cast<C>(rtol_in), atol = static_cast<C>(atol_in);
  AllcloseScan<C> total;
  auto block = [&](AllcloseScan<C>& local, int64_t logical, const T* pa, const T* pe, int64_t m) {
    auto at = [&](int64_t i) { return element<C>(load_as<C>(pa[i]), load_as<C>(pe[i]), rtol, atol); };
    const BlockSummary<C> sum = block_pass<C>(pa, pe, m, rtol, atol);
    local.mismatches += sum.bad;
    if (sum.bad && local.first.size() < max_listed) {
      for (int64_t i = 0; i < m && local.first.size() < max_listed; ++i)
        if (!at(i).close)
          local.first.push_back(
              {logical + i, static_cast<double>(load_as<C>(pa[i])), static_cast<double>(load_as<C>(pe[i]))});
    }
    if (sum.max_abs > local.abs.value)
      local.abs = {sum.max_abs, logical + first_index(m, [&](int64_t i) { return at(i).abs_diff == sum.max_abs; })};
    if (sum.max_rel > local.rel.value)
      local.rel = {sum.max_rel, logical + first_index(m, [&](int64_t i) { return at(i).rel_diff == sum.max_rel; })};
  };
  auto merge = [&](const AllcloseScan<C>& local) {
    out.mismatches += local.mismatches;
    out.first.insert(out.first.end(), local.first.begin(), local.first.end());
    total.abs.offer(local.abs.value, local.abs.index);
    total.rel.offer(local.rel.value, local.rel.index);
  };
  scan_blocks(a, e, Runs::whole(out.numel), AllcloseScan<C>{}, block, merge);
  std::sort(out.first.begin(), out.first.end(),
            [](const Mismatch& x, const Mismatch& y) { return x.flat_index < y.flat_index; });
  if (out.first.size() > max_listed) out.first.resize(max_listed);
  if (total.abs.index >= 0) {
    out.max_abs_diff = static_cast<double>(total.abs.value);
    out.max_abs_index = total.abs.index;
  }
  if (total.rel.index >= 0) {
    out.max_rel_diff = static_cast<double>(total.rel.value);
    out.max_rel_index = total.rel.index;
  }
}

std::string element_text(double v, c10::ScalarType dtype) {
  if (dtype == at::kBool) return v != 0 ? "True" : "False";
  if (at::isIntegralType(dtype, false)) return std::to_string(static_cast<int64_t>(v));
  return python_float_repr(v);
}

}  // namespace

AllcloseStats allclose_stats(const at::Tensor& actual_in, const at::Tensor& expected_in, double rtol,
                             double atol, size_t max_listed) {
  at::Tensor actual = gate_operand(actual_in);
  at::Tensor expected = gate_operand(expected_in);
  AllcloseStats stats;
  stats.numel = actual.numel();
  if (stats.numel == 0) return stats;
  dispatch_gate_type(actual.scalar_type(), "allclose", [&](auto tag) {
    using T = decltype(tag);
    scan<T>(actual.const_data_ptr<T>(), expected.const_data_ptr<T>(), rtol, atol, max_listed, stats);
  });
  return stats;
}

std::string shape_dtype_text(const at::Tensor& t) {
  return "shape=" + python_shape_repr(t.sizes()) + " dtype=" + torch_dtype_repr(t.scalar_type());
}

GateResult allclose_check(const at::Tensor& actual, const at::Tensor& expected, double rtol, double atol) {
  // Inputs: equal shapes and dtypes.
  if (!actual.sizes().equals(expected.sizes())) return gate_result({shape_mismatch_text(actual, expected)});
  if (actual.scalar_type() != expected.scalar_type())
    return gate_result({"dtype mismatch: actual " + torch_dtype_repr(actual.scalar_type()) + " vs expected " +
                        torch_dtype_repr(expected.scalar_type())});
  // Scan, then the verdict.
  const AllcloseStats s = allclose_stats(actual, expected, rtol, atol);
  if (s.mismatches == 0) return gate_result({});
  const auto dtype = actual.scalar_type();
  GateLines lines{"Mismatched elements: " + std::to_string(s.mismatches) + "/" + std::to_string(s.numel) +
                  "  rtol=" + python_float_repr(rtol) + " atol=" + python_float_repr(atol)};
  if (s.max_abs_index >= 0) {
    lines.push_back("Greatest absolute difference: " + python_float_repr(s.max_abs_diff) + " at index " +
                    unravel_text(s.max_abs_index, actual.sizes()));
    lines.push_back("Greatest relative difference: " + python_float_repr(s.max_rel_diff) + " at index " +
                    unravel_text(s.max_rel_index, actual.sizes()));
  }
  lines.push_back("first " + std::to_string(s.first.size()) + " mismatches:");
  for (const auto& m : s.first)
    lines.push_back("[" + std::to_string(m.flat_index) + "] actual=" + element_text(m.actual, dtype) +
                    ", expected=" + element_text(m.expected, dtype));
  return gate_result(lines);
}

GateResult allclose_gate(const std::string& name, const at::Tensor& actual, const at::Tensor& expected,
                         double rtol, double atol) {
  GateResult r = allclose_check(actual, expected, rtol, atol);
  if (!r.passed) r.detail = output_failure_text(name, std::nullopt, shape_dtype_text(actual), r.detail);
  return r;
}

}  // namespace pypto_golden
