#include "tensor/python_repr.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace pypto_golden;

TEST_CASE("floats print like Python's repr") {
  CHECK(python_float_repr(2.0) == "2.0");
  CHECK(python_float_repr(1e-05) == "1e-05");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(0.1) == "0.1");
  CHECK(python_float_repr(static_cast<double>(0.1f)) == "0.10000000149011612");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(1234567890123456.0) == "1234567890123456.0");
  CHECK(python_float_repr(-3.5) == "-3.5");
  CHECK(python_float_repr(123.0) == "123.0");
  CHECK(python_float_repr(1.5e-7) == "1.5e-07");
  CHECK(python_float_repr(NAN) == "nan");
  CHECK(python_float_repr(-INFINITY) == "-inf");
  CHECK(python_float_repr(-0.0) == "-0.0");
}

TEST_CASE("shapes print like Python tuples") {
  CHECK(python_shape_repr(std::vector<int64_t>{}) == "()");
  CHECK(python_shape_repr(std::vector<int64_t>{4}) == "(4,)");
  CHECK(python_shape_repr(std::vector<int64_t>{1024, 512}) == "(1024, 512)");
  CHECK(python_list_repr(std::vector<int64_t>{1, 2}) == "[1, 2]");
}
