// The arguments of one op call and the one reader of them. Every lookup knows the op's
// name, so each message reads "pl.<op>: <argument> must be ..., got ..." without the op
// spelling its own name at every argument.
#pragma once

#include "sim/value.h"

#include <c10/core/ScalarType.h>
#include <c10/util/SmallVector.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

class Device;

struct OpArgs {
  // The op's IR name ("add"), set by whoever calls it from the op table.
  const char* op = "";
  // Inline for the usual few: a call's arguments then cost no allocation.
  c10::SmallVector<Value, 4> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  // The device the kernel runs on: tensors an op creates are allocated in its memory
  // (null in unit tests that call ops directly: then ordinary host memory).
  Device* device = nullptr;
  // The result is read once by the op this call is an argument of and then dropped (see
  // CallExpr): pl.load may return a view of its source instead of a copy.
  bool transient = false;

  // The keyword's value as passed (None included), or nullptr when it was not passed.
  const Value* keyword(const char* name) const;
  // The `i`-th positional argument, else keyword `name`; nullptr when neither was passed
  // or the value is None.
  const Value* optional(size_t i, const char* name) const;
  // A keyword-only argument; nullptr when absent or None.
  const Value* option(const char* name) const;
  // As `optional`, but a missing argument is "pl.<op>: missing argument '<name>'".
  const Value& required(size_t i, const char* name) const;
  // A required argument that must be a tensor.
  const Value& tensor(size_t i, const char* name) const;

  // Typed views of one of this call's values; each throws "pl.<op>: <name> must be ...".
  const Value& as_tensor(const Value& v, const char* name) const;
  int64_t as_int(const Value& v, const char* name) const;
  bool as_bool(const Value& v, const char* name) const;
  // A list/tuple of integer scalars (a single integer is a one-item list).
  std::vector<int64_t> as_int_list(const Value& v, const char* name) const;
  // A dtype argument (`pl.FP32`); `name_out` receives the PyPTO name when given.
  c10::ScalarType as_dtype(const Value& v, const char* name, std::string* name_out = nullptr) const;
  // An enum argument: the IR passes "PadValue.min"; returns "min". A bare "min" is accepted too.
  std::string as_enum_member(const Value& v, const char* enum_name) const;

  // Throws the KernelError "pl.<op>: <detail>".
  [[noreturn]] void fail(const std::string& detail) const;
};

}  // namespace pypto_golden::sim
