#include "validate/mapped_pool_ratio_allclose.h"

#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <mutex>

namespace pypto_golden {
namespace {

bool is_mapping_dtype(c10::ScalarType t) {
  return t == at::kChar || t == at::kShort || t == at::kInt || t == at::kLong || t == at::kByte;
}

// Elements of one row that differ (NaN never equals; -0.0 equals 0.0).
template <typename T>
int64_t changed_in_row(const T* a, const T* e, int64_t n) {
  int64_t changed = 0;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>)
      changed += !(static_cast<float>(a[i]) == static_cast<float>(e[i]));
    else
      changed += !(a[i] == e[i]);
  }
  return changed;
}

template <typename T>
bool row_equal(const T* a, const T* e, int64_t n) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) {
    for (int64_t i = 0; i < n; ++i)
      if (!(static_cast<float>(a[i]) == static_cast<float>(e[i]))) return false;
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (!(a[i] == e[i])) return false;
  }
  return true;
}

}  // namespace

GateResult mapped_pool_ratio_allclose(const at::Tensor& actual_in, const at::Tensor& expected_in,
                                      const at::Tensor& mapping_in, const MappedPoolOptions& opt) {
  GateResult r;
  const std::string& pool = opt.pool_name;
  const std::string m = "'" + opt.mapping_name + "'";
  if (!actual_in.sizes().equals(expected_in.sizes())) {
    r.detail = "    " + pool + " shape mismatch: actual=" + python_shape_repr(actual_in.sizes()) +
               " expected=" + python_shape_repr(expected_in.sizes());
    return r;
  }
  const int64_t block_axis = opt.leading_rank_axis ? 2 : 1;
  if (actual_in.dim() < block_axis + 1 || actual_in.size(block_axis) != opt.block_size) {
    r.detail = "    expected block-major " + pool + " layout " +
               (opt.leading_rank_axis ? "[ranks, blocks, block_size, ...]" : "[blocks, block_size, ...]") +
               " with block_size=" + std::to_string(opt.block_size) + ", got " + python_shape_repr(actual_in.sizes());
    return r;
  }
  if (!mapping_in.defined()) {
    r.detail = "    compare_fn misconfigured: missing input " + m;
    return r;
  }
  if (!is_mapping_dtype(mapping_in.scalar_type())) {
    r.detail = "    " + m + " must have an integer dtype, got " + torch_dtype_repr(mapping_in.scalar_type());
    return r;
  }
  if (!mapping_in.sizes().equals(opt.mapping_shape)) {
    r.detail = "    " + m + " must have shape " + python_shape_repr(opt.mapping_shape) + ", got " +
               python_shape_repr(mapping_in.sizes());
    return r;
  }
  const int64_t ranks = opt.leading_rank_axis ? opt.mapping_shape[0] : 1;
  if (opt.leading_rank_axis && actual_in.size(0) != ranks) {
    r.detail = "    leading rank count of " + pool + " must be " + std::to_string(ranks) + ", got " +
               std::to_string(actual_in.size(0));
    return r;
  }
  const int64_t rows = actual_in.size(block_axis - 1) * opt.block_size;  // physical rows per rank
  int64_t row_elems = 1;
  for (int64_t d = block_axis + 1; d < actual_in.dim(); ++d) row_elems *= actual_in.size(d);

  // The mapping is small: read it once as int64.
  const at::Tensor mapping = mapping_in.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* mv = mapping.data_ptr<int64_t>();
  const int64_t items = mapping.numel() / ranks;
  auto location = [&](int64_t k) {
    return opt.leading_rank_axis ? "[" + std::to_string(k / items) + ", " + std::to_string(k % items) + "]"
                                 : "[" + std::to_string(k) + "]";
  };
  for (int64_t k = 0; k < mapping.numel(); ++k)
    if (mv[k] < -1) {
      r.detail = "    " + m + location(k) + "=" + std::to_string(mv[k]) + " is invalid; only -1 is a negative sentinel";
      return r;
    }
  for (int64_t k = 0; k < mapping.numel(); ++k)
    if (mv[k] >= rows) {
      r.detail = "    " + m + location(k) + "=" + std::to_string(mv[k]) + " is outside physical row range [0, " +
                 std::to_string(rows) + ")";
      return r;
    }
  std::vector<bool> written(static_cast<size_t>(ranks * rows), false);
  for (int64_t rank = 0; rank < ranks; ++rank) {
    std::vector<int64_t> used;
    for (int64_t i = 0; i < items; ++i)
      if (mv[rank * items + i] >= 0) used.push_back(mv[rank * items + i]);
    std::sort(used.begin(), used.end());
    for (size_t i = 1; i < used.size(); ++i)
      if (used[i] == used[i - 1]) {
        r.detail = "    " + m + " contains duplicate physical row " + std::to_string(used[i]) +
                   (opt.leading_rank_axis ? " on rank " + std::to_string(rank) : "");
        return r;
      }
    for (int64_t row : used) written[static_cast<size_t>(rank * rows + row)] = true;
  }

  at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  if (actual.scalar_type() != expected.scalar_type()) {
    // Mixed dtypes (rare): compared after promotion, as torch's == does.
    const auto common = at::promote_types(actual.scalar_type(), expected.scalar_type());
    actual = actual.to(common);
    expected = expected.to(common);
  }

  // Unmapped rows must be unchanged: find the first (rank, row) that is not.
  const int64_t total_rows = ranks * rows;
  std::atomic<int64_t> first_stray{total_rows};
  dispatch_gate_type(actual.scalar_type(), "mapped_pool_ratio_allclose", [&](auto tag) {
    using T = decltype(tag);
    const T* a = actual.data_ptr<T>();
    const T* e = expected.data_ptr<T>();
    at::parallel_for(0, total_rows, std::max<int64_t>(1, kGateGrain / std::max<int64_t>(row_elems, 1)),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t row = begin; row < end && row < first_stray.load(); ++row) {
                         if (written[static_cast<size_t>(row)]) continue;
                         if (!row_equal(a + row * row_elems, e + row * row_elems, row_elems)) {
                           int64_t seen = first_stray.load();
                           while (row < seen && !first_stray.compare_exchange_weak(seen, row)) {
                           }
                           break;
                         }
                       }
                     });
    const int64_t stray = first_stray.load();
    if (stray < total_rows) {
      const int64_t changed = changed_in_row(a + stray * row_elems, e + stray * row_elems, row_elems);
      r.detail = "    unmapped physical " + pool + " row changed:" +
                 (opt.leading_rank_axis ? " rank=" + std::to_string(stray / rows) : std::string()) +
                 " row=" + std::to_string(stray % rows) + " changed_values=" + std::to_string(changed) +
                 " mapping=" + m;
    }
  });
  if (!r.detail.empty()) return r;

  std::vector<int64_t> starts;
  for (int64_t row = 0; row < total_rows; ++row)
    if (written[static_cast<size_t>(row)]) starts.push_back(row * row_elems);
  if (starts.empty()) {
    r.passed = true;
    return r;
  }
  const Runs runs{static_cast<int64_t>(starts.size()), row_elems, 0, 0, starts.data()};
  if (runs.numel() == 0) {
    r.passed = true;
    return r;
  }
  RatioAllcloseOptions ratio = opt.ratio;
  ratio.prefix = ValidPrefix{};
  const RatioAllcloseScan s = ratio_allclose_scan(actual, expected, runs, ratio.atol, ratio.rtol,
                                                  static_cast<size_t>(std::max<int64_t>(ratio.max_show, 0)));
  const int64_t bad_actual = s.nonfinite.actual_nan + s.nonfinite.actual_inf;
  const int64_t bad_expected = s.nonfinite.expected_nan + s.nonfinite.expected_inf;
  if (bad_actual || bad_expected) {
    r.detail = std::string("    ") + (bad_actual ? "actual" : "expected") + " mapped rows in " + pool + " from " + m +
               " contain " + std::to_string(bad_actual ? bad_actual : bad_expected) + " non-finite value(s)";
    return r;
  }
  const std::vector<int64_t> shape{static_cast<int64_t>(starts.size()), row_elems};
  GateResult verdict = ratio_allclose_verdict(s, shape, ratio);
  if (!verdict.passed) verdict.detail = "    mapped rows in " + pool + " from " + m + ":\n" + verdict.detail;
  return verdict;
}

}  // namespace pypto_golden
