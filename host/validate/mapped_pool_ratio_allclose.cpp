#include "validate/mapped_pool_ratio_allclose.h"

#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <optional>

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

// The inputs' checks in the order the header lists them: the failure line, or none.
std::optional<std::string> layout_failure(const at::Tensor& actual, const at::Tensor& expected,
                                          const at::Tensor& mapping, const MappedPoolOptions& opt) {
  const std::string& pool = opt.pool_name;
  const std::string m = "'" + opt.mapping_name + "'";
  if (!actual.sizes().equals(expected.sizes()))
    return pool + " shape mismatch: actual=" + python_shape_repr(actual.sizes()) +
           " expected=" + python_shape_repr(expected.sizes());
  const int64_t block_axis = opt.leading_rank_axis ? 2 : 1;
  if (actual.dim() < block_axis + 1 || actual.size(block_axis) != opt.block_size)
    return "expected block-major " + pool + " layout " +
           (opt.leading_rank_axis ? "[ranks, blocks, block_size, ...]" : "[blocks, block_size, ...]") +
           " with block_size=" + std::to_string(opt.block_size) + ", got " + python_shape_repr(actual.sizes());
  if (!mapping.defined()) return "compare_fn misconfigured: missing input " + m;
  if (!is_mapping_dtype(mapping.scalar_type()))
    return m + " must have an integer dtype, got " + torch_dtype_repr(mapping.scalar_type());
  if (!mapping.sizes().equals(opt.mapping_shape))
    return m + " must have shape " + python_shape_repr(opt.mapping_shape) + ", got " +
           python_shape_repr(mapping.sizes());
  if (opt.leading_rank_axis && actual.size(0) != opt.mapping_shape[0])
    return "leading rank count of " + pool + " must be " + std::to_string(opt.mapping_shape[0]) + ", got " +
           std::to_string(actual.size(0));
  return std::nullopt;
}

// Which physical rows of each rank the mapping writes (rank-major), or the failure line of a
// bad mapping value.
std::optional<std::string> mapped_rows(const at::Tensor& mapping_in, int64_t ranks, int64_t rows,
                                       const MappedPoolOptions& opt, std::vector<bool>& written) {
  const std::string m = "'" + opt.mapping_name + "'";
  // The mapping is small: read it once as int64.
  const at::Tensor mapping = mapping_in.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* mv = mapping.const_data_ptr<int64_t>();
  const int64_t items = mapping.numel() / ranks;
  auto location = [&](int64_t k) {
    return opt.leading_rank_axis ? "[" + std::to_string(k / items) + ", " + std::to_string(k % items) + "]"
                                 : "[" + std::to_string(k) + "]";
  };
  for (int64_t k = 0; k < mapping.numel(); ++k)
    if (mv[k] < -1)
      return m + location(k) + "=" + std::to_string(mv[k]) + " is invalid; only -1 is a negative sentinel";
  for (int64_t k = 0; k < mapping.numel(); ++k)
    if (mv[k] >= rows)
      return m + location(k) + "=" + std::to_string(mv[k]) + " is outside physical row range [0, " +
             std::to_string(rows) + ")";
  written.assign(static_cast<size_t>(ranks * rows), false);
  for (int64_t rank = 0; rank < ranks; ++rank) {
    std::vector<int64_t> used;
    for (int64_t i = 0; i < items; ++i)
      if (mv[rank * items + i] >= 0) used.push_back(mv[rank * items + i]);
    std::sort(used.begin(), used.end());
    for (size_t i = 1; i < used.size(); ++i)
      if (used[i] == used[i - 1])
        return m + " contains duplicate physical row " + std::to_string(used[i]) +
               (opt.leading_rank_axis ? " on rank " + std::to_string(rank) : "");
    for (int64_t row : used) written[static_cast<size_t>(rank * rows + row)] = true;
  }
  return std::nullopt;
}

}  // namespace

GateResult mapped_pool_ratio_allclose(const at::Tensor& actual_in, const at::Tensor& expected_in,
                                      const at::Tensor& mapping_in, const MappedPoolOptions& opt) {
  // Inputs: the layout, then the mapping's values.
  if (auto failure = layout_failure(actual_in, expected_in, mapping_in, opt)) return gate_result({*failure});
  const std::string& pool = opt.pool_name;
  const std::string m = "'" + opt.mapping_name + "'";
  const int64_t block_axis = opt.leading_rank_axis ? 2 : 1;
  const int64_t ranks = opt.leading_rank_axis ? opt.mapping_shape[0] : 1;
  const int64_t rows = actual_in.size(block_axis - 1) * opt.block_size;  // physical rows per rank
  int64_t row_elems = 1;
  for (int64_t d = block_axis + 1; d < actual_in.dim(); ++d) row_elems *= actual_in.size(d);
  std::vector<bool> written;
  if (auto failure = mapped_rows(mapping_in, ranks, rows, opt, written)) return gate_result({*failure});

  at::Tensor actual = gate_operand(actual_in), expected = gate_operand(expected_in);
  if (actual.scalar_type() != expected.scalar_type()) {
    // Mixed dtypes (rare): compared after promotion, as torch's == does.
    const auto common = at::promote_types(actual.scalar_type(), expected.scalar_type());
    actual = actual.to(common);
    expected = expected.to(common);
  }

  // Scan the unmapped rows: each must be unchanged; find the first (rank, row) that is not.
  const int64_t total_rows = ranks * rows;
  std::atomic<int64_t> first_stray{total_rows};
  std::optional<std::string> stray_line;
  dispatch_gate_type(actual.scalar_type(), "mapped_pool_ratio_allclose", [&](auto tag) {
    using T = decltype(tag);
    const T* a = actual.const_data_ptr<T>();
    const T* e = expected.const_data_ptr<T>();
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
      stray_line = "unmapped physical " + pool + " row changed:" +
                   (opt.leading_rank_axis ? " rank=" + std::to_string(stray / rows) : std::string()) +
                   " row=" + std::to_string(stray % rows) + " changed_values=" + std::to_string(changed) +
                   " mapping=" + m;
    }
  });
  if (stray_line) return gate_result({*stray_line});

  // Scan the mapped rows, in (rank, row) order, as ratio_allclose does.
  std::vector<int64_t> starts;
  for (int64_t row = 0; row < total_rows; ++row)
    if (written[static_cast<size_t>(row)]) starts.push_back(row * row_elems);
  const Runs runs{static_cast<int64_t>(starts.size()), row_elems, 0, 0, starts.data()};
  if (runs.numel() == 0) return gate_result({});
  RatioAllcloseOptions ratio = opt.ratio;
  ratio.prefix = ValidPrefix{};
  const RatioAllcloseScan s = ratio_allclose_scan(actual, expected, runs, ratio.atol, ratio.rtol,
                                                  static_cast<size_t>(std::max<int64_t>(ratio.max_show, 0)));

  // Verdict: non-finite mapped values fail first, then ratio_allclose's budget.
  const int64_t bad_actual = s.nonfinite.actual_nan + s.nonfinite.actual_inf;
  const int64_t bad_expected = s.nonfinite.expected_nan + s.nonfinite.expected_inf;
  if (bad_actual || bad_expected)
    return gate_result({std::string(bad_actual ? "actual" : "expected") + " mapped rows in " + pool + " from " + m +
                        " contain " + std::to_string(bad_actual ? bad_actual : bad_expected) + " non-finite value(s)"});
  GateLines lines = ratio_allclose_verdict(s, {static_cast<int64_t>(starts.size()), row_elems}, ratio);
  if (!lines.empty()) lines.insert(lines.begin(), "mapped rows in " + pool + " from " + m + ":");
  return gate_result(lines);
}

}  // namespace pypto_golden
