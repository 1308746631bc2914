#include "tensor/python_repr.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace pypto_golden {

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0.0) return std::signbit(value) ? "-0.0" : "0.0";

  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // e.g. "-1.2345e+02"
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  auto e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int exponent = std::atoi(sci.c_str() + e + 1);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt

  std::string out;
  if (decpt <= -4 || decpt > 16) {
    // Python's repr switches to exponent form outside this window.
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    int exp10 = decpt - 1;
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += ebuf;
  } else if (decpt <= 0) {
    out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    out = digits + std::string(decpt - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return negative ? "-" + out : out;
}

std::string python_scalar_repr(const c10::Scalar& value) {
  if (value.isBoolean()) return value.toBool() ? "True" : "False";
  if (value.isIntegral(false)) return std::to_string(value.toLong());
  return python_float_repr(value.toDouble());
}

std::string python_shape_repr(c10::IntArrayRef shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string python_list_repr(c10::IntArrayRef values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

int64_t python_round(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

namespace {
std::optional<std::string> special(double x, const char* suffix) {
  if (std::isnan(x)) return std::string("nan") + suffix;
  if (std::isinf(x)) return std::string(x > 0 ? "inf" : "-inf") + suffix;
  return std::nullopt;
}
}  // namespace

std::string format_g(double x, int precision) {
  if (auto s = special(x, "")) return *s;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, x);
  return buf;
}

std::string format_percent4(double x) {
  if (auto s = special(x * 100.0, "%")) return *s;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.4f%%", x * 100.0);
  return buf;
}

std::string format_e0(double x) {
  if (auto s = special(x, "")) return *s;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0e", x);
  return buf;
}

}  // namespace pypto_golden
