// First, so that every function of this file has the same options (see PYPTO_GATE_KERNEL).
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#include "validate/ratio_reldiff.h"

#include "validate/gate_scan.h"

#include <ATen/ATen.h>

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

// Bad points counted, the greatest rdiff over bad points kept (-1: none).
template <typename T>
PYPTO_GATE_KERNEL BlockTally block_pass(const T* __restrict a, const T* __restrict e, int64_t m, Params prm) {
  return tally_block(a, e, m, [=](float x, float y) {
    const Point p = point(x, y, prm);
    const bool is_bad = p.rdiff > prm.diff_thd;
    return Judged{is_bad, is_bad ? p.rdiff : -1.0f};
  });
}

struct Scan {
  NonFinite nonfinite;
  int64_t bad = 0;
  float worst = -1.0f;
  std::vector<ListedPoint> first;  // abs_diff in .first, rdiff in .second
};

template <typename T>
void scan_typed(const T* a, const T* e, const Runs& runs, const Params& prm, size_t max_show, Scan& out) {
  auto block = [&](Scan& local, int64_t logical, const T* pa, const T* pe, int64_t m) {
    const BlockTally s = block_pass<T>(pa, pe, m, prm);
    local.bad += s.bad;
    local.nonfinite.add(s.nonfinite());
    local.worst = std::max(local.worst, s.top);
    if (s.bad)
      list_bad_points(local.first, max_show, logical, m, [&](int64_t i, ListedPoint& listed) {
        const Point p = point(load_f32(pa[i]), load_f32(pe[i]), prm);
        listed = {0, p.x, p.y, p.diff, p.rdiff};
        return p.rdiff > prm.diff_thd;
      });
  };
  auto merge = [&](const Scan& local) {
    out.bad += local.bad;
    out.nonfinite.add(local.nonfinite);
    out.worst = std::max(out.worst, local.worst);
    out.first.insert(out.first.end(), local.first.begin(), local.first.end());
  };
  scan_blocks(a, e, runs, Scan{}, block, merge);
  keep_first(out.first, max_show);
}

GateLines verdict(const Scan& s, int64_t numel, const RatioReldiffOptions& opt) {
  const int64_t threshold = python_round(opt.pct_thd * static_cast<double>(numel));
  const double worst = s.bad > 0 ? static_cast<double>(s.worst) : 0.0;
  const bool count_ok = s.bad <= threshold, cap_ok = worst < opt.max_diff_hd;
  if (count_ok && cap_ok) return {};
  std::string reasons;
  if (!count_ok) reasons = error_count_text(s.bad, numel, opt.pct_thd, threshold);
  if (!cap_ok)
    reasons += (reasons.empty() ? "" : " AND ") + std::string("worst rdiff=") + format_g(worst, 4) +
               " >= max_diff_hd=" + format_g(opt.max_diff_hd, 4);
  GateLines lines{
      "ratio_reldiff fail: " + reasons,
      "diff_thd=" + param_text(opt.diff_thd_text, opt.diff_thd) +
          " pct_thd=" + param_text(opt.pct_thd_text, opt.pct_thd) +
          " max_diff_hd=" + param_text(opt.max_diff_hd_text, opt.max_diff_hd),
  };
  append_listed_points(lines, s.first, "abs_diff", "rdiff");
  return lines;
}

}  // namespace

GateResult ratio_reldiff(const at::Tensor& actual_in, const at::Tensor& expected_in, const RatioReldiffOptions& opt) {
  // Inputs: equal shapes, then the compared region.
  if (!actual_in.sizes().equals(expected_in.sizes())) return gate_result({shape_mismatch_text(actual_in, expected_in)});
  at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  Runs runs;
  std::vector<int64_t> shape;
  if (auto failure = select_valid_prefix(actual, opt.prefix, runs, shape)) return gate_result({*failure});
  if (runs.numel() == 0) return gate_result({});
  if (actual.scalar_type() != expected.scalar_type()) {
    actual = actual.to(at::kFloat);
    expected = expected.to(at::kFloat);
  }
  // Scan, then the verdict: non-finite values fail before the budget and the cap.
  const Params prm{static_cast<float>(opt.diff_thd), static_cast<float>((1.0 / 16384.0) / opt.diff_thd)};
  const size_t max_show = static_cast<size_t>(std::max<int64_t>(opt.max_show, 0));
  Scan s;
  dispatch_gate_type(actual.scalar_type(), "ratio_reldiff", [&](auto tag) {
    using T = decltype(tag);
    scan_typed<T>(actual.const_data_ptr<T>(), expected.const_data_ptr<T>(), runs, prm, max_show, s);
  });
  if (s.nonfinite.any()) return gate_result({nonfinite_text(s.nonfinite)});
  return gate_result(verdict(s, runs.numel(), opt));
}

}  // namespace pypto_golden
