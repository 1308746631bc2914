// First, so that every function of this file has the same options (see PYPTO_GATE_KERNEL).
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#include "validate/ratio_reldiff.h"

#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <limits>
#include <mutex>

namespace pypto_golden {
namespace {

struct Params {
  float diff_thd;  // the threshold as float32 (torch compares a float32 tensor in float32)
  float floor;     // 2^-14 / diff_thd, rounded to float32 (torch.full_like)
};

struct Point {
  float x, y, diff, rdiff;
};

inline Point point(float x, float y, const Params& p) {
  const float diff = std::fabs(x - y);
  float big = std::fabs(x) > std::fabs(y) ? std::fabs(x) : std::fabs(y);
  big = big > p.floor ? big : p.floor;
  const float denom = big + 1e-9f;
  const float ratio = diff / denom;
  return {x, y, diff, diff < p.diff_thd ? diff : ratio};
}

struct BlockSummary {
  int32_t bad, actual_nan, actual_inf, expected_nan, expected_inf;
  float worst;  // greatest rdiff over bad points (-1: none)
};

template <typename T>
PYPTO_GATE_KERNEL BlockSummary block_pass(const T* __restrict a, const T* __restrict e, int64_t m, Params prm) {
  const float inf = std::numeric_limits<float>::infinity();
  int32_t bad = 0, an = 0, ai = 0, en = 0, ei = 0;
  float worst = -1.0f;
#pragma omp simd reduction(+ : bad, an, ai, en, ei) reduction(max : worst)
  for (int64_t i = 0; i < m; ++i) {
    const float x = load_f32(a[i]), y = load_f32(e[i]);
    an += x != x ? 1 : 0;
    ai += std::fabs(x) == inf ? 1 : 0;
    en += y != y ? 1 : 0;
    ei += std::fabs(y) == inf ? 1 : 0;
    const Point p = point(x, y, prm);
    const bool is_bad = p.rdiff > prm.diff_thd;
    bad += is_bad ? 1 : 0;
    const float candidate = is_bad ? p.rdiff : -1.0f;
    worst = candidate > worst ? candidate : worst;
  }
  return {bad, an, ai, en, ei, worst};
}

struct Scan {
  NonFinite nonfinite;
  int64_t bad = 0;
  float worst = -1.0f;
  std::vector<ListedPoint> first;  // abs_diff in .first, rdiff in .second
};

template <typename T>
void scan_typed(const T* a, const T* e, const Runs& runs, const Params& prm, size_t max_show, Scan& out) {
  std::mutex mu;
  at::parallel_for(0, runs.numel(), kGateGrain, [&](int64_t begin, int64_t end) {
    Scan local;
    for_each_piece(runs, begin, end, [&](int64_t logical, int64_t at, int64_t n) {
      for (int64_t b = 0; b < n; b += kGateBlock) {
        const int64_t m = std::min(kGateBlock, n - b);
        const T* pa = a + at + b;
        const T* pe = e + at + b;
        const BlockSummary s = block_pass<T>(pa, pe, m, prm);
        local.bad += s.bad;
        local.nonfinite.add({s.actual_nan, s.actual_inf, s.expected_nan, s.expected_inf});
        local.worst = std::max(local.worst, s.worst);
        if (s.bad && local.first.size() < max_show) {
          for (int64_t i = 0; i < m && local.first.size() < max_show; ++i) {
            const Point p = point(load_f32(pa[i]), load_f32(pe[i]), prm);
            if (p.rdiff > prm.diff_thd) local.first.push_back({logical + b + i, p.x, p.y, p.diff, p.rdiff});
          }
        }
      }
    });
    std::lock_guard<std::mutex> lock(mu);
    out.bad += local.bad;
    out.nonfinite.add(local.nonfinite);
    out.worst = std::max(out.worst, local.worst);
    out.first.insert(out.first.end(), local.first.begin(), local.first.end());
  });
  keep_first(out.first, max_show);
}

std::string text_or_repr(const std::string& text, double value) {
  return text.empty() ? python_float_repr(value) : text;
}

}  // namespace

GateResult ratio_reldiff(const at::Tensor& actual_in, const at::Tensor& expected_in, const RatioReldiffOptions& opt) {
  GateResult r;
  if (!actual_in.sizes().equals(expected_in.sizes())) {
    r.detail = shape_mismatch_text(actual_in, expected_in);
    return r;
  }
  at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  Runs runs;
  std::vector<int64_t> shape;
  if (auto failure = select_valid_prefix(actual, opt.prefix, runs, shape)) {
    r.detail = *failure;
    return r;
  }
  const int64_t numel = runs.numel();
  if (numel == 0) {
    r.passed = true;
    return r;
  }
  if (actual.scalar_type() != expected.scalar_type()) {
    actual = actual.to(at::kFloat);
    expected = expected.to(at::kFloat);
  }
  const Params prm{static_cast<float>(opt.diff_thd), static_cast<float>((1.0 / 16384.0) / opt.diff_thd)};
  const size_t max_show = static_cast<size_t>(std::max<int64_t>(opt.max_show, 0));
  Scan s;
  dispatch_gate_type(actual.scalar_type(), "ratio_reldiff", [&](auto tag) {
    using T = decltype(tag);
    scan_typed<T>(actual.data_ptr<T>(), expected.data_ptr<T>(), runs, prm, max_show, s);
  });
  if (s.nonfinite.any()) {
    r.detail = nonfinite_text(s.nonfinite);
    return r;
  }
  const int64_t threshold = python_round(opt.pct_thd * static_cast<double>(numel));
  const double worst = s.bad > 0 ? static_cast<double>(s.worst) : 0.0;
  const bool count_ok = s.bad <= threshold, cap_ok = worst < opt.max_diff_hd;
  if (count_ok && cap_ok) {
    r.passed = true;
    return r;
  }
  std::string reasons;
  if (!count_ok)
    reasons = "error_count=" + std::to_string(s.bad) + "/" + std::to_string(numel) +
              " (ratio=" + format_percent4(static_cast<double>(s.bad) / static_cast<double>(numel)) +
              ", allowed<=" + format_percent4(opt.pct_thd) + ", threshold=" + std::to_string(threshold) + " pts)";
  if (!cap_ok)
    reasons += (reasons.empty() ? "" : " AND ") + std::string("worst rdiff=") + format_g(worst, 4) +
               " >= max_diff_hd=" + format_g(opt.max_diff_hd, 4);
  std::string d = "    ratio_reldiff fail: " + reasons + "\n";
  d += "    diff_thd=" + text_or_repr(opt.diff_thd_text, opt.diff_thd) +
       " pct_thd=" + text_or_repr(opt.pct_thd_text, opt.pct_thd) +
       " max_diff_hd=" + text_or_repr(opt.max_diff_hd_text, opt.max_diff_hd) + "\n";
  d += "    first " + std::to_string(s.first.size()) + " mismatches:\n";
  for (size_t k = 0; k < s.first.size(); ++k) {
    const ListedPoint& p = s.first[k];
    d += (k ? "\n" : "") + std::string("    [") + std::to_string(p.index) + "] actual=" + format_g(p.actual, 8) +
         ", expected=" + format_g(p.expected, 8) + ", abs_diff=" + format_g(p.first, 4) +
         ", rdiff=" + format_g(p.second, 4);
  }
  r.detail = d;
  return r;
}

}  // namespace pypto_golden
