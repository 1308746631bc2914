// golden.validation's native gates (ratio_allclose, topk_pair_compare, ...), exposed on
// _pypto_golden. Kept apart from define_module.cpp so the gates grow in one file.
//
// Each function runs one gate's whole check with the GIL released and returns (ok, detail),
// the compare_fn result; golden/validation.py wraps them in the comparators users name.
#include "define_module.h"

#include "validate/error_distribution.h"
#include "validate/mapped_pool_ratio_allclose.h"
#include "validate/ratio_allclose.h"
#include "validate/ratio_reldiff.h"
#include "validate/topk_pair_compare.h"

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {
namespace {

py::tuple verdict(const GateResult& r) { return py::make_tuple(r.passed, r.detail); }

template <typename F>
GateResult without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

py::tuple topk(const at::Tensor& actual_idx, const at::Tensor& expected_idx, const at::Tensor& actual_vals,
               const std::optional<at::Tensor>& expected_vals, const std::string& vals_name, int64_t dim,
               bool descending, int64_t max_show) {
  const TopkPairOptions opt{vals_name, dim, descending, max_show};
  return verdict(without_gil([&] {
    return topk_pair_compare(actual_idx, expected_idx, actual_vals, expected_vals.value_or(at::Tensor()), opt);
  }));
}

py::tuple ratio(const at::Tensor& actual, const at::Tensor& expected, double atol, double rtol, double max_error_ratio,
                int64_t max_show, std::optional<int64_t> valid_rows, int64_t valid_axis, bool zero_tail,
                const std::string& atol_text, const std::string& rtol_text) {
  RatioAllcloseOptions opt;
  opt.atol = atol;
  opt.rtol = rtol;
  opt.max_error_ratio = max_error_ratio;
  opt.max_show = max_show;
  opt.prefix = ValidPrefix{valid_rows, valid_axis, zero_tail};
  opt.atol_text = atol_text;
  opt.rtol_text = rtol_text;
  return verdict(without_gil([&] { return ratio_allclose(actual, expected, opt); }));
}

py::tuple reldiff(const at::Tensor& actual, const at::Tensor& expected, double diff_thd, double pct_thd,
                  double max_diff_hd, int64_t max_show, std::optional<int64_t> valid_rows, int64_t valid_axis,
                  bool zero_tail, const std::string& diff_thd_text, const std::string& pct_thd_text,
                  const std::string& max_diff_hd_text) {
  RatioReldiffOptions opt;
  opt.diff_thd = diff_thd;
  opt.pct_thd = pct_thd;
  opt.max_diff_hd = max_diff_hd;
  opt.max_show = max_show;
  opt.prefix = ValidPrefix{valid_rows, valid_axis, zero_tail};
  opt.diff_thd_text = diff_thd_text;
  opt.pct_thd_text = pct_thd_text;
  opt.max_diff_hd_text = max_diff_hd_text;
  return verdict(without_gil([&] { return ratio_reldiff(actual, expected, opt); }));
}

py::tuple mapped_pool(const at::Tensor& actual, const at::Tensor& expected, const std::optional<at::Tensor>& mapping,
                      const std::string& mapping_name, const std::vector<int64_t>& mapping_shape, int64_t block_size,
                      bool leading_rank_axis, const std::string& pool_name, double atol, double rtol,
                      double max_error_ratio, const std::string& atol_text, const std::string& rtol_text) {
  MappedPoolOptions opt;
  opt.mapping_name = mapping_name;
  opt.mapping_shape = mapping_shape;
  opt.block_size = block_size;
  opt.leading_rank_axis = leading_rank_axis;
  opt.pool_name = pool_name;
  opt.ratio.atol = atol;
  opt.ratio.rtol = rtol;
  opt.ratio.max_error_ratio = max_error_ratio;
  opt.ratio.atol_text = atol_text;
  opt.ratio.rtol_text = rtol_text;
  return verdict(without_gil(
      [&] { return mapped_pool_ratio_allclose(actual, expected, mapping.value_or(at::Tensor()), opt); }));
}

py::tuple distribution(const at::Tensor& actual, const at::Tensor& expected, const std::vector<double>& diff_thds,
                       const std::vector<double>& quantiles, bool always_pass) {
  ErrorDistributionOptions opt{diff_thds, quantiles, always_pass};
  ErrorDistribution d;
  {
    py::gil_scoped_release release;
    d = error_distribution(actual, expected, opt);
  }
  return py::make_tuple(d.result.passed, d.result.detail, d.report);
}

}  // namespace

void define_validation(py::module_& m) {
  m.def("topk_pair_compare", &topk, py::arg("actual_idx"), py::arg("expected_idx"), py::arg("actual_vals"),
        py::arg("expected_vals"), py::arg("vals_name"), py::arg("dim"), py::arg("descending"), py::arg("max_show"),
        "topk_pair_compare's check: (ok, detail).");
  m.def("ratio_allclose", &ratio, py::arg("actual"), py::arg("expected"), py::arg("atol"), py::arg("rtol"),
        py::arg("max_error_ratio"), py::arg("max_show"), py::arg("valid_rows"), py::arg("valid_axis"),
        py::arg("zero_tail"), py::arg("atol_text") = "", py::arg("rtol_text") = "",
        "ratio_allclose's check: (ok, detail).");
  m.def("ratio_reldiff", &reldiff, py::arg("actual"), py::arg("expected"), py::arg("diff_thd"), py::arg("pct_thd"),
        py::arg("max_diff_hd"), py::arg("max_show"), py::arg("valid_rows"), py::arg("valid_axis"),
        py::arg("zero_tail"), py::arg("diff_thd_text") = "", py::arg("pct_thd_text") = "",
        py::arg("max_diff_hd_text") = "", "ratio_reldiff's check: (ok, detail).");
  m.def("mapped_pool_ratio_allclose", &mapped_pool, py::arg("actual"), py::arg("expected"), py::arg("mapping"),
        py::arg("mapping_name"), py::arg("mapping_shape"), py::arg("block_size"), py::arg("leading_rank_axis"),
        py::arg("pool_name"), py::arg("atol"), py::arg("rtol"), py::arg("max_error_ratio"),
        py::arg("atol_text") = "", py::arg("rtol_text") = "", "mapped_pool_ratio_allclose's check: (ok, detail).");
  m.def("error_distribution", &distribution, py::arg("actual"), py::arg("expected"), py::arg("diff_thds"),
        py::arg("quantiles"), py::arg("always_pass"),
        "error_distribution's measurement: (ok, detail, report to print).");
}

}  // namespace pypto_golden
