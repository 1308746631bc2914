// Text the way Python prints it, so native reports read exactly like the Python harness.
#pragma once

#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <string>

namespace pypto_golden {

// repr(float): shortest round-trip digits; "1e-05", "2.0", "nan", "-inf".
std::string python_float_repr(double value);

// repr(tuple(shape)): "(4,)", "(1024, 512)", "()".
std::string python_shape_repr(c10::IntArrayRef shape);

// repr(list(shape)): "[4]", "[1024, 512]".
std::string python_list_repr(c10::IntArrayRef values);

}  // namespace pypto_golden
