#include "sim/ops/op_args.h"

#include "sim/kernel_error.h"

namespace pypto_golden::sim {

const Value* OpArgs::keyword(const char* name) const {
  for (const auto& kv : keywords)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

const Value* OpArgs::optional(size_t i, const char* name) const {
  const Value* v = i < positional.size() ? &positional[i] : keyword(name);
  if (!v || v->kind == Value::Kind::None) return nullptr;
  return v;
}

const Value* OpArgs::option(const char* name) const {
  const Value* v = keyword(name);
  if (!v || v->kind == Value::Kind::None) return nullptr;
  return v;
}

void OpArgs::fail(const std::string& detail) const { throw KernelError(std::string("pl.") + op + ": " + detail); }

const Value& OpArgs::required(size_t i, const char* name) const {
  const Value* v = optional(i, name);
  if (!v) fail(std::string("missing argument '") + name + "'");
  return *v;
}

const Value& OpArgs::tensor(size_t i, const char* name) const { return as_tensor(required(i, name), name); }

const Value& OpArgs::as_tensor(const Value& v, const char* name) const {
  if (!v.is_tensor()) fail(std::string(name) + " must be a tensor, got " + v.describe());
  return v;
}

int64_t OpArgs::as_int(const Value& v, const char* name) const {
  if (v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool) return v.i;
  fail(std::string(name) + " must be an integer, got " + v.describe());
}

bool OpArgs::as_bool(const Value& v, const char* name) const {
  if (v.kind == Value::Kind::Int || v.kind == Value::Kind::Bool) return v.i != 0;
  fail(std::string(name) + " must be a bool, got " + v.describe());
}

std::vector<int64_t> OpArgs::as_int_list(const Value& v, const char* name) const {
  if (v.kind == Value::Kind::Int) return {v.i};
  if (v.kind != Value::Kind::List && v.kind != Value::Kind::Tuple)
    fail(std::string(name) + " must be a list of integers, got " + v.describe());
  std::vector<int64_t> out;
  out.reserve(v.items->size());
  for (const auto& item : *v.items) {
    if (item.kind != Value::Kind::Int)
      fail(std::string(name) + " must be a list of integers, but an item is " + item.describe());
    out.push_back(item.i);
  }
  return out;
}

c10::ScalarType OpArgs::as_dtype(const Value& v, const char* name, std::string* name_out) const {
  if (v.kind != Value::Kind::DType) fail(std::string(name) + " must be a dtype (pl.FP32, ...), got " + v.describe());
  if (name_out) *name_out = v.dtype_name();
  return v.stype;
}

std::string OpArgs::as_enum_member(const Value& v, const char* enum_name) const {
  if (v.kind != Value::Kind::Str) fail(std::string("expected a pl.") + enum_name + " member, got " + v.describe());
  const std::string& s = *v.str;
  const std::string prefix = std::string(enum_name) + ".";
  if (s.rfind(prefix, 0) == 0) return s.substr(prefix.size());
  if (s.find('.') != std::string::npos) fail(std::string("expected a pl.") + enum_name + " member, got " + s);
  return s;
}

}  // namespace pypto_golden::sim
