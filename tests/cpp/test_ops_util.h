// Helpers for the op tests: call an op of the table with positional / keyword values.
#pragma once

#include "sim/kernel_error.h"
#include "sim/ops/op_table.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace ops_test {

using pypto_golden::sim::KernelError;
using pypto_golden::sim::OpArgs;
using pypto_golden::sim::Value;
using Kw = std::vector<std::pair<std::string, Value>>;

inline OpArgs make_args(std::vector<Value> pos, Kw kw = {}, const char* name = "") {
  OpArgs a;
  a.op = name;
  a.positional.assign(std::make_move_iterator(pos.begin()), std::make_move_iterator(pos.end()));
  a.keywords = std::move(kw);
  return a;
}

inline const pypto_golden::sim::OpDef& op(const char* name) {
  const auto* d = pypto_golden::sim::op_table().find(name);
  INFO("op ", std::string(name));
  REQUIRE(d != nullptr);
  return *d;
}

inline Value call(const char* name, std::vector<Value> pos, Kw kw = {}) {
  return op(name).fn(make_args(std::move(pos), std::move(kw), name));
}

// Evaluates `name(...)` as the right side of a subscript write into `dst`; returns what it
// wrote of it.
inline pypto_golden::sim::WrittenCorner call_into(const char* name, const at::Tensor& dst, std::vector<Value> pos,
                                                  Kw kw = {}) {
  const auto& d = op(name);
  REQUIRE(static_cast<bool>(d.into));
  return d.into(make_args(std::move(pos), std::move(kw), name), dst);
}

inline Value T(at::Tensor t) { return Value::from_tensor(std::move(t)); }
inline Value TV(at::Tensor t, std::vector<int64_t> valid) { return Value::from_tensor(std::move(t), std::move(valid)); }
inline Value I(int64_t v) { return Value::from_int(v); }
inline Value F(double v) { return Value::from_float(v); }
inline Value B(bool v) { return Value::from_bool(v); }
inline Value S(const char* s) { return Value::from_string(s); }
inline Value D(const char* pypto_name) { return Value::from_dtype_name(pypto_name); }
inline Value L(std::vector<int64_t> items) {
  std::vector<Value> v;
  for (auto i : items) v.push_back(I(i));
  return Value::list(std::move(v));
}

inline at::Tensor f32(std::vector<float> v) { return at::tensor(v, at::kFloat); }
inline at::Tensor i32(std::vector<int32_t> v) { return at::tensor(v, at::kInt); }
inline at::Tensor i64(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }

inline bool same(const at::Tensor& a, const at::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes().equals(b.sizes()) && at::equal(a, b);
}

}  // namespace ops_test
