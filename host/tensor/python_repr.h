// Text the way Python prints it, so native reports read exactly like the Python harness:
// the one home of the Python-style number, shape and list formatting.
#pragma once

#include <c10/core/Scalar.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <string>

namespace pypto_golden {

// repr(float): shortest round-trip digits; "1e-05", "2.0", "nan", "-inf".
std::string python_float_repr(double value);

// repr of a Python number holding the scalar: "True", "3", "0.5".
std::string python_scalar_repr(const c10::Scalar& value);

// repr(tuple(shape)): "(4,)", "(1024, 512)", "()".
std::string python_shape_repr(c10::IntArrayRef shape);

// repr(list(shape)): "[4]", "[1024, 512]".
std::string python_list_repr(c10::IntArrayRef values);

// Python's round(x) for a float: half to even.
int64_t python_round(double x);

// format(x, '.Ng') as Python prints it ("nan", "inf", "1e-05", "0.333333").
std::string format_g(double x, int precision);

// format(x, '.4%'): "0.5000%".
std::string format_percent4(double x);

// format(x, '.0e'): "1e-03".
std::string format_e0(double x);

}  // namespace pypto_golden
