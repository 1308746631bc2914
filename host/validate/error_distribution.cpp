// First, so that every function of this file has the same options (see PYPTO_GATE_KERNEL).
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#include "validate/error_distribution.h"

#include "validate/gate_scan.h"

#include <ATen/ATen.h>

namespace pypto_golden {
namespace {

struct Threshold {
  float thd, floor;
};

struct Sums {
  int64_t actual_nan = 0, actual_inf = 0;  // what makes the output illegal (the golden is not judged)
  double diff2 = 0, exp2 = 0, act2 = 0, dot = 0, exp_abs = 0;
  std::vector<int64_t> bad;
  std::vector<float> worst;
};

template <typename T>
PYPTO_GATE_KERNEL void block_sums(const T* __restrict a, const T* __restrict e, int64_t m, Sums& s) {
  int64_t an = 0, ai = 0;
  double d2 = 0, e2 = 0, a2 = 0, dot = 0, ea = 0;
#pragma omp simd reduction(+ : an, ai, d2, e2, a2, dot, ea)
  for (int64_t i = 0; i < m; ++i) {
    const float x = load_f32(a[i]), y = load_f32(e[i]);
    an += nan_count(x);
    ai += inf_count(x);
    const double d = std::fabs(x - y);
    d2 += d * d;
    e2 += static_cast<double>(y) * y;
    a2 += static_cast<double>(x) * x;
    dot += static_cast<double>(x) * y;
    ea += std::fabs(static_cast<double>(y));
  }
  s.actual_nan += an;
  s.actual_inf += ai;
  s.diff2 += d2;
  s.exp2 += e2;
  s.act2 += a2;
  s.dot += dot;
  s.exp_abs += ea;
}

// ratio_reldiff's floored relative difference at one threshold.
template <typename T>
PYPTO_GATE_KERNEL void block_threshold(const T* __restrict a, const T* __restrict e, int64_t m, Threshold t,
                                       int64_t& bad_out, float& worst_out) {
  int32_t bad = 0;
  float worst = -1.0f;
#pragma omp simd reduction(+ : bad) reduction(max : worst)
  for (int64_t i = 0; i < m; ++i) {
    const float x = load_f32(a[i]), y = load_f32(e[i]);
    const float d = std::fabs(x - y);
    float big = std::fabs(x) > std::fabs(y) ? std::fabs(x) : std::fabs(y);
    big = big > t.floor ? big : t.floor;
    const float ratio = d / (big + 1e-9f);
    const float rd = d < t.thd ? d : ratio;
    const bool is_bad = rd > t.thd;
    bad += is_bad ? 1 : 0;
    const float c = is_bad ? rd : -1.0f;
    worst = c > worst ? c : worst;
  }
  bad_out += bad;
  worst_out = std::max(worst_out, worst);
}

// The three percentile series, finite values only.
enum class Series { RelDiff, AbsDiff, GoldenAbs };

template <typename T>
int64_t fill_series(const T* a, const T* e, int64_t n, Series which, float* out) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float x = load_f32(a[i]), y = load_f32(e[i]);
    float v;
    if (which == Series::GoldenAbs) {
      v = std::fabs(y);
    } else {
      const float d = std::fabs(x - y);
      if (which == Series::AbsDiff) {
        v = d;
      } else {
        float big = std::fabs(x) > std::fabs(y) ? std::fabs(x) : std::fabs(y);
        big = big > 1e-6f ? big : 1e-6f;  // clamp_min(1e-6)
        v = d / big;                       // NaN / Inf inputs give a non-finite v: dropped
      }
    }
    if (std::isfinite(v)) out[count++] = v;
  }
  return count;
}

// torch.quantile (linear): rank = q * (n - 1) in float32, lerp between its neighbours.
std::vector<float> quantiles_of(float* v, int64_t n, const std::vector<double>& qs) {
  std::vector<float> rank(qs.size()), weight(qs.size());
  std::vector<int64_t> below(qs.size()), above(qs.size());
  for (size_t k = 0; k < qs.size(); ++k) {
    rank[k] = static_cast<float>(qs[k]) * static_cast<float>(n - 1);
    // float32 ranks round for n > 2^24: keep them inside the data (torch.quantile refuses there)
    below[k] = std::min<int64_t>(static_cast<int64_t>(rank[k]), n - 1);
    above[k] = std::min<int64_t>(static_cast<int64_t>(std::ceil(rank[k])), n - 1);
    weight[k] = rank[k] - static_cast<float>(below[k]);
  }
  std::vector<int64_t> ranks;
  for (size_t k = 0; k < qs.size(); ++k) {
    ranks.push_back(below[k]);
    ranks.push_back(above[k]);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  int64_t from = 0;
  for (int64_t k : ranks) {  // select in increasing order over the remaining range
    std::nth_element(v + from, v + k, v + n);
    from = k + 1;
  }
  std::vector<float> out(qs.size());
  for (size_t k = 0; k < qs.size(); ++k) {
    const float lo = v[below[k]], hi = v[above[k]], w = weight[k];
    out[k] = w < 0.5f ? lo + w * (hi - lo) : hi - (hi - lo) * (1.0f - w);
  }
  return out;
}

}  // namespace

ErrorDistribution error_distribution(const at::Tensor& actual_in, const at::Tensor& expected_in,
                                     const ErrorDistributionOptions& opt) {
  // Inputs: equal shapes, compared in float32 when the dtypes differ.
  ErrorDistribution out;
  if (!actual_in.sizes().equals(expected_in.sizes())) {
    out.result = gate_result({shape_mismatch_text(actual_in, expected_in)});
    return out;
  }
  at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  if (actual.scalar_type() != expected.scalar_type()) {
    actual = actual.to(at::kFloat);
    expected = expected.to(at::kFloat);
  }
  const int64_t n = actual.numel();
  std::vector<Threshold> thds;
  for (double t : opt.diff_thds) thds.push_back({static_cast<float>(t), static_cast<float>((1.0 / 16384.0) / t)});

  Sums init;
  init.bad.assign(thds.size(), 0);
  init.worst.assign(thds.size(), -1.0f);
  Sums total = init;
  std::string report;
  dispatch_gate_type(actual.scalar_type(), "error_distribution", [&](auto tag) {
    using T = decltype(tag);
    const T* a = actual.const_data_ptr<T>();
    const T* e = expected.const_data_ptr<T>();
    // Scan: the sums and each threshold's counts in one pass.
    auto block = [&](Sums& local, int64_t, const T* pa, const T* pe, int64_t m) {
      block_sums<T>(pa, pe, m, local);
      for (size_t k = 0; k < thds.size(); ++k) block_threshold<T>(pa, pe, m, thds[k], local.bad[k], local.worst[k]);
    };
    auto merge = [&](const Sums& local) {
      total.actual_nan += local.actual_nan;
      total.actual_inf += local.actual_inf;
      total.diff2 += local.diff2;
      total.exp2 += local.exp2;
      total.act2 += local.act2;
      total.dot += local.dot;
      total.exp_abs += local.exp_abs;
      for (size_t k = 0; k < thds.size(); ++k) {
        total.bad[k] += local.bad[k];
        total.worst[k] = std::max(total.worst[k], local.worst[k]);
      }
    };
    scan_blocks(a, e, Runs::whole(n), init, block, merge);

    // Verdict: illegal values in the output fail only when always_pass is off; the report
    // names them either way, as its first line.
    if (total.actual_nan || total.actual_inf) {
      const GateResult illegal = gate_result({"illegal values in actual: NaN=" + std::to_string(total.actual_nan) +
                                              " Inf=" + std::to_string(total.actual_inf)});
      report += illegal.detail + "\n";
      if (!opt.always_pass) {
        out.result = illegal;
        return;
      }
    }
    out.result = gate_result({});
    const float diff_norm = static_cast<float>(std::sqrt(total.diff2));
    const float exp_norm = static_cast<float>(std::sqrt(total.exp2));
    const double rel = diff_norm / std::max(exp_norm, 1e-12f);
    const double cos = total.dot / (std::max(std::sqrt(total.act2), 1e-8) * std::max(std::sqrt(total.exp2), 1e-8));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.7f", cos);
    report += "rel-L2 = " + format_percent4(rel) + "  cosine = " + (std::isnan(cos) ? std::string("nan") : buf) +
              "  numel=" + std::to_string(n) + "\n";
    if (n == 0) return;
    for (size_t k = 0; k < thds.size(); ++k) {
      const double worst = total.bad[k] ? static_cast<double>(total.worst[k]) : 0.0;
      report += "  diff_thd=" + format_e0(opt.diff_thds[k]) +
                "  frac>thd=" + format_percent4(static_cast<double>(total.bad[k]) / static_cast<double>(n)) +
                "  worst=" + format_g(worst, 3) + "\n";
    }
    std::vector<float> buffer(static_cast<size_t>(n));
    auto percentiles = [&](const std::string& label, Series which) {
      const int64_t count = fill_series(a, e, n, which, buffer.data());
      if (count == 0) {
        report += "  " + label + ": (no finite values)\n";
        return;
      }
      const std::vector<float> values = quantiles_of(buffer.data(), count, opt.quantiles);
      std::string line = "  " + label + ": ";
      for (size_t k = 0; k < values.size(); ++k)
        line += (k ? "  " : "") + std::string("p") + format_g(opt.quantiles[k] * 100.0, 6) + "=" + format_g(values[k], 3);
      report += line + "\n";
    };
    percentiles("rel-diff percentiles", Series::RelDiff);
    percentiles("abs-diff percentiles", Series::AbsDiff);
    report += "  |golden| mean=" + format_g(total.exp_abs / static_cast<double>(n), 4) + "\n";
    percentiles("|golden| percentiles", Series::GoldenAbs);
  });
  out.report = report;
  return out;
}

}  // namespace pypto_golden
