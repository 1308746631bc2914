// First, so that every function of this file has the same options (see PYPTO_GATE_KERNEL).
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#include "validate/ratio_allclose.h"

#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <limits>
#include <mutex>

namespace pypto_golden {
namespace {

struct Point {
  float x, y, diff, tol;
};

inline Point point(float x, float y, float atol, float rtol) {
  const float diff = std::fabs(x - y);
  const float tol = atol + rtol * std::fabs(y);
  return {x, y, diff, tol};
}

struct BlockSummary {
  int32_t bad, actual_nan, actual_inf, expected_nan, expected_inf;
  float max_diff;  // NaN differences are skipped (they fail as non-finite anyway)
};

template <typename T>
PYPTO_GATE_KERNEL BlockSummary block_pass(const T* __restrict a, const T* __restrict e, int64_t m, float atol,
                                          float rtol) {
  const float inf = std::numeric_limits<float>::infinity();
  int32_t bad = 0, an = 0, ai = 0, en = 0, ei = 0;
  float max_diff = -1.0f;
#pragma omp simd reduction(+ : bad, an, ai, en, ei) reduction(max : max_diff)
  for (int64_t i = 0; i < m; ++i) {
    const float x = load_f32(a[i]), y = load_f32(e[i]);
    an += x != x ? 1 : 0;
    ai += std::fabs(x) == inf ? 1 : 0;
    en += y != y ? 1 : 0;
    ei += std::fabs(y) == inf ? 1 : 0;
    const Point p = point(x, y, atol, rtol);
    bad += p.diff > p.tol ? 1 : 0;
    max_diff = p.diff > max_diff ? p.diff : max_diff;
  }
  return {bad, an, ai, en, ei, max_diff};
}

template <typename T>
void scan_typed(const T* a, const T* e, const Runs& runs, float atol, float rtol, size_t max_show,
                RatioAllcloseScan& out) {
  std::mutex mu;
  at::parallel_for(0, runs.numel(), kGateGrain, [&](int64_t begin, int64_t end) {
    RatioAllcloseScan local;
    for_each_piece(runs, begin, end, [&](int64_t logical, int64_t at, int64_t n) {
      for (int64_t b = 0; b < n; b += kGateBlock) {
        const int64_t m = std::min(kGateBlock, n - b);
        const T* pa = a + at + b;
        const T* pe = e + at + b;
        const BlockSummary s = block_pass<T>(pa, pe, m, atol, rtol);
        local.bad += s.bad;
        local.nonfinite.add({s.actual_nan, s.actual_inf, s.expected_nan, s.expected_inf});
        if (s.bad && local.first.size() < max_show) {
          for (int64_t i = 0; i < m && local.first.size() < max_show; ++i) {
            const Point p = point(load_f32(pa[i]), load_f32(pe[i]), atol, rtol);
            if (p.diff > p.tol) local.first.push_back({logical + b + i, p.x, p.y, p.diff, p.tol});
          }
        }
        if (s.max_diff > local.max_diff.value || local.max_diff.index < 0) {
          for (int64_t i = 0; i < m; ++i) {
            const Point p = point(load_f32(pa[i]), load_f32(pe[i]), atol, rtol);
            if (p.diff == s.max_diff) {
              local.max_diff = {p.diff, logical + b + i};
              local.max_tol = p.tol;
              break;
            }
          }
        }
      }
    });
    std::lock_guard<std::mutex> lock(mu);
    out.bad += local.bad;
    out.nonfinite.add(local.nonfinite);
    out.first.insert(out.first.end(), local.first.begin(), local.first.end());
    const int64_t before = out.max_diff.index;
    out.max_diff.offer(local.max_diff.value, local.max_diff.index);
    if (out.max_diff.index != before) out.max_tol = local.max_tol;
  });
  keep_first(out.first, max_show);
}

std::string text_or_repr(const std::string& text, double value) {
  return text.empty() ? python_float_repr(value) : text;
}

}  // namespace

RatioAllcloseScan ratio_allclose_scan(const at::Tensor& actual_in, const at::Tensor& expected_in, const Runs& runs,
                                      double atol, double rtol, size_t max_show) {
  RatioAllcloseScan out;
  out.numel = runs.numel();
  if (out.numel == 0) return out;
  at::Tensor actual = actual_in, expected = expected_in;
  if (actual.scalar_type() != expected.scalar_type()) {
    // Mixed dtypes (rare): both as float32, which is what they are compared in.
    actual = actual.to(at::kFloat);
    expected = expected.to(at::kFloat);
  }
  dispatch_gate_type(actual.scalar_type(), "ratio_allclose", [&](auto tag) {
    using T = decltype(tag);
    scan_typed<T>(actual.data_ptr<T>(), expected.data_ptr<T>(), runs, static_cast<float>(atol),
                  static_cast<float>(rtol), max_show, out);
  });
  return out;
}

GateResult ratio_allclose_verdict(const RatioAllcloseScan& s, c10::IntArrayRef shape, const RatioAllcloseOptions& opt) {
  GateResult r;
  const int64_t threshold = python_round(opt.max_error_ratio * static_cast<double>(s.numel));
  if (s.bad <= threshold) {
    r.passed = true;
    return r;
  }
  std::string d = "    ratio_allclose fail: error_count=" + std::to_string(s.bad) + "/" + std::to_string(s.numel) +
                  " (ratio=" + format_percent4(static_cast<double>(s.bad) / static_cast<double>(s.numel)) +
                  ", allowed<=" + format_percent4(opt.max_error_ratio) + ", threshold=" + std::to_string(threshold) +
                  " pts)\n";
  d += "    atol=" + text_or_repr(opt.atol_text, opt.atol) + " rtol=" + text_or_repr(opt.rtol_text, opt.rtol) + "\n";
  d += "    max abs diff=" + format_g(s.max_diff.value, 6) + " at " + unravel_text(s.max_diff.index, shape) +
       " (tol=" + format_g(s.max_tol, 6) + ")\n";
  d += "    first " + std::to_string(s.first.size()) + " mismatches:\n";
  for (size_t k = 0; k < s.first.size(); ++k) {
    const ListedPoint& p = s.first[k];
    d += (k ? "\n" : "") + std::string("    [") + std::to_string(p.index) + "] actual=" + format_g(p.actual, 8) +
         ", expected=" + format_g(p.expected, 8) + ", diff=" + format_g(p.first, 4) + ", tol=" + format_g(p.second, 4);
  }
  r.detail = d;
  return r;
}

GateResult ratio_allclose(const at::Tensor& actual_in, const at::Tensor& expected_in, const RatioAllcloseOptions& opt) {
  GateResult r;
  if (!actual_in.sizes().equals(expected_in.sizes())) {
    r.detail = shape_mismatch_text(actual_in, expected_in);
    return r;
  }
  const at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  Runs runs;
  std::vector<int64_t> shape;
  if (auto failure = select_valid_prefix(actual, opt.prefix, runs, shape)) {
    r.detail = *failure;
    return r;
  }
  if (runs.numel() == 0) {
    r.passed = true;
    return r;
  }
  const RatioAllcloseScan s =
      ratio_allclose_scan(actual, expected, runs, opt.atol, opt.rtol, static_cast<size_t>(std::max<int64_t>(opt.max_show, 0)));
  if (s.nonfinite.any()) {
    r.detail = nonfinite_text(s.nonfinite);
    return r;
  }
  return ratio_allclose_verdict(s, shape, opt);
}

}  // namespace pypto_golden
