// First, so that every function of this file has the same options (see PYPTO_GATE_KERNEL).
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#include "validate/ratio_allclose.h"

#include "validate/gate_scan.h"

#include <ATen/ATen.h>

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

// Bad points counted, the greatest difference kept (NaN differences are skipped: they fail as
// non-finite anyway).
template <typename T>
PYPTO_GATE_KERNEL BlockTally block_pass(const T* __restrict a, const T* __restrict e, int64_t m, float atol,
                                        float rtol) {
  return tally_block(a, e, m, [=](float x, float y) {
    const Point p = point(x, y, atol, rtol);
    return Judged{p.diff > p.tol, p.diff};
  });
}

template <typename T>
void scan_typed(const T* a, const T* e, const Runs& runs, float atol, float rtol, size_t max_show,
                RatioAllcloseScan& out) {
  auto block = [&](RatioAllcloseScan& local, int64_t logical, const T* pa, const T* pe, int64_t m) {
    const BlockTally s = block_pass<T>(pa, pe, m, atol, rtol);
    local.bad += s.bad;
    local.nonfinite.add(s.nonfinite());
    auto at = [&](int64_t i) { return point(load_f32(pa[i]), load_f32(pe[i]), atol, rtol); };
    if (s.bad)
      list_bad_points(local.first, max_show, logical, m, [&](int64_t i, ListedPoint& listed) {
        const Point p = at(i);
        listed = {0, p.x, p.y, p.diff, p.tol};
        return p.diff > p.tol;
      });
    if (s.top > local.max_diff.value || local.max_diff.index < 0) {
      const int64_t i = first_index(m, [&](int64_t k) { return at(k).diff == s.top; });
      if (i >= 0) {
        local.max_diff = {s.top, logical + i};
        local.max_tol = at(i).tol;
      }
    }
  };
  auto merge = [&](const RatioAllcloseScan& local) {
    out.bad += local.bad;
    out.nonfinite.add(local.nonfinite);
    out.first.insert(out.first.end(), local.first.begin(), local.first.end());
    const int64_t before = out.max_diff.index;
    out.max_diff.offer(local.max_diff.value, local.max_diff.index);
    if (out.max_diff.index != before) out.max_tol = local.max_tol;
  };
  scan_blocks(a, e, runs, RatioAllcloseScan{}, block, merge);
  keep_first(out.first, max_show);
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
    scan_typed<T>(actual.const_data_ptr<T>(), expected.const_data_ptr<T>(), runs, static_cast<float>(atol),
                  static_cast<float>(rtol), max_show, out);
  });
  return out;
}

GateLines ratio_allclose_verdict(const RatioAllcloseScan& s, c10::IntArrayRef shape, const RatioAllcloseOptions& opt) {
  const int64_t threshold = python_round(opt.max_error_ratio * static_cast<double>(s.numel));
  if (s.bad <= threshold) return {};
  GateLines lines{
      "ratio_allclose fail: " + error_count_text(s.bad, s.numel, opt.max_error_ratio, threshold),
      "atol=" + param_text(opt.atol_text, opt.atol) + " rtol=" + param_text(opt.rtol_text, opt.rtol),
      "max abs diff=" + format_g(s.max_diff.value, 6) + " at " + unravel_text(s.max_diff.index, shape) +
          " (tol=" + format_g(s.max_tol, 6) + ")",
  };
  append_listed_points(lines, s.first, "diff", "tol");
  return lines;
}

GateResult ratio_allclose(const at::Tensor& actual_in, const at::Tensor& expected_in, const RatioAllcloseOptions& opt) {
  // Inputs: equal shapes, then the compared region.
  if (!actual_in.sizes().equals(expected_in.sizes())) return gate_result({shape_mismatch_text(actual_in, expected_in)});
  const at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  Runs runs;
  std::vector<int64_t> shape;
  if (auto failure = select_valid_prefix(actual, opt.prefix, runs, shape)) return gate_result({*failure});
  if (runs.numel() == 0) return gate_result({});
  // Scan, then the verdict: non-finite values fail before the budget is looked at.
  const RatioAllcloseScan s =
      ratio_allclose_scan(actual, expected, runs, opt.atol, opt.rtol, static_cast<size_t>(std::max<int64_t>(opt.max_show, 0)));
  if (s.nonfinite.any()) return gate_result({nonfinite_text(s.nonfinite)});
  return gate_result(ratio_allclose_verdict(s, shape, opt));
}

}  // namespace pypto_golden
