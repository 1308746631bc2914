#include "validate/topk_pair_compare.h"

#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <mutex>

namespace pypto_golden {
namespace {

// Reads single elements of a strided tensor of any gate dtype (the top-k outputs are small;
// a switch per element keeps this simple without copies).
struct Reader {
  const char* base = nullptr;
  c10::ScalarType type = c10::kFloat;
  int64_t item = 0;

  explicit Reader(const at::Tensor& t)
      : base(static_cast<const char*>(t.const_data_ptr())), type(t.scalar_type()), item(static_cast<int64_t>(t.element_size())) {}

  template <typename T>
  T get(int64_t offset) const {
    return *reinterpret_cast<const T*>(base + offset * item);
  }
  float f32(int64_t offset) const {
    float out = 0.0f;
    dispatch_gate_type(type, "topk_pair_compare", [&](auto tag) { out = load_f32(get<decltype(tag)>(offset)); });
    return out;
  }
  double f64(int64_t offset) const {
    double out = 0.0;
    dispatch_gate_type(type, "topk_pair_compare", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) out = static_cast<float>(get<T>(offset));
      else out = static_cast<double>(get<T>(offset));
    });
    return out;
  }
  int64_t i64(int64_t offset) const {
    int64_t out = 0;
    dispatch_gate_type(type, "topk_pair_compare", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>)
        out = static_cast<int64_t>(static_cast<float>(get<T>(offset)));
      else out = static_cast<int64_t>(get<T>(offset));
    });
    return out;
  }
};

struct Failure {
  int64_t row = 0;
  int64_t pos = 0;
};

}  // namespace

GateResult topk_pair_compare(const at::Tensor& actual_idx_in, const at::Tensor& expected_idx_in,
                             const at::Tensor& actual_vals_in, const at::Tensor& expected_vals_in,
                             const TopkPairOptions& opt) {
  // Inputs: shapes, dim, dtypes (and the expected vals when k = 1).
  const at::Tensor a_idx = actual_idx_in.device().is_cpu() ? actual_idx_in : actual_idx_in.cpu();
  const at::Tensor e_idx = expected_idx_in.device().is_cpu() ? expected_idx_in : expected_idx_in.cpu();
  const at::Tensor a_vals = actual_vals_in.device().is_cpu() ? actual_vals_in : actual_vals_in.cpu();
  if (!a_idx.sizes().equals(e_idx.sizes()))
    return gate_result({"idx shape mismatch: " + python_shape_repr(a_idx.sizes()) + " vs " +
                        python_shape_repr(e_idx.sizes())});
  if (!a_idx.sizes().equals(a_vals.sizes()))
    return gate_result({"idx/vals shape mismatch: idx=" + python_shape_repr(a_idx.sizes()) +
                        " vs vals=" + python_shape_repr(a_vals.sizes())});
  const int64_t ndim = a_idx.dim();
  const int64_t dim = opt.dim < 0 ? opt.dim + ndim : opt.dim;
  if (dim < 0 || dim >= ndim)
    return gate_result({"dim=" + std::to_string(opt.dim) + " out of range for shape " + python_shape_repr(a_idx.sizes())});
  for (const at::Tensor* t : {&a_idx, &e_idx, &a_vals})
    if (!gate_supports(t->scalar_type()))
      throw std::invalid_argument("topk_pair_compare: unsupported dtype " + torch_dtype_repr(t->scalar_type()));
  const int64_t k = a_idx.size(dim);
  const bool k_is_one = k == 1;
  at::Tensor e_vals;
  if (k_is_one) {
    if (!expected_vals_in.defined())
      return gate_result({"compare_fn misconfigured: vals_name='" + opt.vals_name + "' not found in expected outputs"});
    e_vals = expected_vals_in.device().is_cpu() ? expected_vals_in : expected_vals_in.cpu();
    if (!a_idx.sizes().equals(e_vals.sizes()))
      return gate_result({"idx/expected vals shape mismatch: idx=" + python_shape_repr(a_idx.sizes()) +
                          " vs vals=" + python_shape_repr(e_vals.sizes())});
    if (!gate_supports(e_vals.scalar_type()))
      throw std::invalid_argument("topk_pair_compare: unsupported dtype " + torch_dtype_repr(e_vals.scalar_type()));
  }
  const int64_t numel = a_idx.numel();
  if (numel == 0) return gate_result({});
  const int64_t rows = numel / k;

  // Leading axes (all but dim), in order; a row is one index over them.
  std::vector<int64_t> lead_sizes, lead_axes;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != dim) {
      lead_axes.push_back(d);
      lead_sizes.push_back(a_idx.size(d));
    }
  const Reader ai(a_idx), ei(e_idx), av(a_vals);
  const Reader ev = k_is_one ? Reader(e_vals) : Reader(a_vals);
  const bool integral = !at::isFloatingType(a_idx.scalar_type()) && !at::isFloatingType(e_idx.scalar_type());
  auto row_base = [&](const at::Tensor& t, int64_t row) {
    int64_t off = 0;
    for (size_t j = lead_sizes.size(); j-- > 0;) {
      off += (row % lead_sizes[j]) * t.stride(lead_axes[j]);
      row /= lead_sizes[j];
    }
    return off;
  };
  const int64_t sa = a_idx.stride(dim), se = e_idx.stride(dim), sv = a_vals.stride(dim);
  const size_t max_show = static_cast<size_t>(std::max<int64_t>(opt.max_show, 0));

  // Scan: the illegal mismatches, row by row.
  int64_t fail_count = 0;
  std::vector<Failure> shown;
  std::mutex mu;
  at::parallel_for(0, rows, std::max<int64_t>(1, 16384 / k), [&](int64_t begin, int64_t end) {
    int64_t local_count = 0;
    std::vector<Failure> local;
    for (int64_t row = begin; row < end; ++row) {
      const int64_t ba = row_base(a_idx, row), be = row_base(e_idx, row), bv = row_base(a_vals, row);
      const int64_t bw = k_is_one ? row_base(e_vals, row) : 0;
      for (int64_t p = 0; p < k; ++p) {
        const bool same = integral ? ai.i64(ba + p * sa) == ei.i64(be + p * se)
                                   : ai.f64(ba + p * sa) == ei.f64(be + p * se);
        if (same) continue;
        bool legal;
        if (k_is_one) {
          legal = av.f32(bv) == ev.f32(bw);
        } else {
          const float v = av.f32(bv + p * sv);
          auto ordered = [&](float hi, float lo) { return opt.descending ? hi >= lo : hi <= lo; };
          const bool left = p == 0 || ordered(av.f32(bv + (p - 1) * sv), v);
          const bool right = p == k - 1 || ordered(v, av.f32(bv + (p + 1) * sv));
          legal = left && right;
        }
        if (legal) continue;
        ++local_count;
        if (local.size() < max_show) local.push_back({row, p});
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    fail_count += local_count;
    shown.insert(shown.end(), local.begin(), local.end());
  });
  // Verdict.
  if (fail_count == 0) return gate_result({});
  std::sort(shown.begin(), shown.end(),
            [](const Failure& x, const Failure& y) { return x.row != y.row ? x.row < y.row : x.pos < y.pos; });
  if (shown.size() > max_show) shown.resize(max_show);

  const std::string order = opt.descending ? "descending" : "ascending";
  GateLines lines{"top-k idx mismatch via '" + opt.vals_name + "' (dim=" + std::to_string(opt.dim) +
                  " order=" + order + "): " + std::to_string(fail_count) +
                  (k_is_one ? " position(s) where k=1 and a_vals differs from the expected value at the mismatch"
                            : " position(s) where a_vals breaks " + order + " order at the mismatch")};
  for (const Failure& f : shown) {
    std::vector<int64_t> coord(static_cast<size_t>(ndim));
    const std::vector<int64_t> lead = unravel(f.row, lead_sizes);
    for (size_t j = 0; j < lead_axes.size(); ++j) coord[static_cast<size_t>(lead_axes[j])] = lead[j];
    coord[static_cast<size_t>(dim)] = f.pos;
    std::string c = "[";
    for (size_t j = 0; j < coord.size(); ++j) c += (j ? "," : "") + std::to_string(coord[j]);
    c += "]";
    const int64_t ba = row_base(a_idx, f.row), be = row_base(e_idx, f.row), bv = row_base(a_vals, f.row);
    std::string line = "  " + c + " actual_idx=" + std::to_string(ai.i64(ba + f.pos * sa)) +
                       " expected_idx=" + std::to_string(ei.i64(be + f.pos * se)) +
                       " actual_score=" + format_g(av.f32(bv + f.pos * sv), 6);
    if (k_is_one) {
      line += " expected_score=" + format_g(ev.f32(row_base(e_vals, f.row)), 6);
    } else {
      const int64_t lo = std::max<int64_t>(0, f.pos - 1), hi = std::min<int64_t>(k, f.pos + 2);
      line += " actual_vals[" + std::to_string(lo) + ":" + std::to_string(hi) + "]=[";
      for (int64_t p = lo; p < hi; ++p) line += (p > lo ? ", " : "") + format_g(av.f32(bv + p * sv), 6);
      line += "]";
    }
    lines.push_back(line);
  }
  if (fail_count > static_cast<int64_t>(max_show))
    lines.push_back("  ... and " + std::to_string(fail_count - static_cast<int64_t>(max_show)) + " more");
  return gate_result(lines);
}

}  // namespace pypto_golden
