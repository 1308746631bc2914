#include "validate/gate_common.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace pypto_golden;

TEST_CASE("python_round rounds half to even like Python's round()") {
  CHECK(python_round(0.5) == 0);
  CHECK(python_round(1.5) == 2);
  CHECK(python_round(2.5) == 2);
  CHECK(python_round(2.5000001) == 3);
  CHECK(python_round(0.005 * 300) == 2);
  CHECK(python_round(0.0) == 0);
}

TEST_CASE("number formats follow Python's format()") {
  CHECK(format_g(1e-05, 6) == "1e-05");
  CHECK(format_g(0.3333333333, 4) == "0.3333");
  CHECK(format_g(100.0, 8) == "100");
  CHECK(format_g(1234567.0, 4) == "1.235e+06");
  CHECK(format_g(NAN, 6) == "nan");
  CHECK(format_g(-NAN, 6) == "nan");
  CHECK(format_g(-INFINITY, 6) == "-inf");
  CHECK(format_percent4(0.005) == "0.5000%");
  CHECK(format_percent4(1.0 / 3.0) == "33.3333%");
  CHECK(format_percent4(NAN) == "nan%");
  CHECK(format_e0(1e-3) == "1e-03");
  CHECK(format_e0(0.05) == "5e-02");
  CHECK(unravel_text(7, {2, 4}) == "(1, 3)");
  CHECK(unravel_text(3, {5}) == "(3,)");
  CHECK(unravel_text(0, {}) == "()");
}

TEST_CASE("runs cover a valid prefix along any axis") {
  at::Tensor t = at::arange(24, at::kFloat).reshape({2, 3, 4});
  Runs runs;
  std::vector<int64_t> shape;
  CHECK_FALSE(select_valid_prefix(t, ValidPrefix{2, 1, false}, runs, shape));
  CHECK(shape == std::vector<int64_t>{2, 2, 4});
  CHECK(runs.numel() == 16);
  std::vector<int64_t> seen;
  for_each_piece(runs, 5, 13, [&](int64_t logical, int64_t at, int64_t n) {
    for (int64_t k = 0; k < n; ++k) seen.push_back(at + k);
    (void)logical;
  });
  // logical 5..12 of the [2, 2, 4] prefix: storage 5, 6, 7, then 12..16 of the second outer block.
  CHECK(seen == std::vector<int64_t>{5, 6, 7, 12, 13, 14, 15, 16});
  CHECK(count_nonzero(t, Runs{2, 4, 12, 8, nullptr}) == 8);  // the tails along axis 1
  at::Tensor z = at::zeros({3});
  z.index_put_({2}, NAN);
  CHECK(count_nonzero(z, Runs::whole(3)) == 1);
}
