#include "tensor/dtype_names.h"

#include "tensor/float8.h"

#include <stdexcept>
#include <unordered_map>

namespace pypto_golden {

std::optional<c10::ScalarType> scalar_type_from_pypto(const std::string& name) {
  static const std::unordered_map<std::string, c10::ScalarType> table = {
      {"fp32", c10::kFloat},   {"fp16", c10::kHalf},   {"bfloat16", c10::kBFloat16},
      {"int8", c10::kChar},    {"int16", c10::kShort}, {"int32", c10::kInt},
      {"int64", c10::kLong},   {"uint8", c10::kByte},  {"uint16", c10::kInt},
      {"uint32", c10::kLong},  {"uint64", c10::kLong}, {"bool", c10::kBool},
      {"index", c10::kLong},
#if PYPTO_HAS_FLOAT8
      {"fp8e4m3fn", c10::ScalarType::Float8_e4m3fn}, {"fp8e5m2", c10::ScalarType::Float8_e5m2},
#endif
#if PYPTO_HAS_FLOAT8_E8M0
      {"fp8e8m0", c10::ScalarType::Float8_e8m0fnu},
#endif
  };
  auto it = table.find(name);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::string pypto_name(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat: return "fp32";
    case c10::kHalf: return "fp16";
    case c10::kBFloat16: return "bfloat16";
    case c10::kChar: return "int8";
    case c10::kShort: return "int16";
    case c10::kInt: return "int32";
    case c10::kLong: return "int64";
    case c10::kByte: return "uint8";
    case c10::kBool: return "bool";
#if PYPTO_HAS_FLOAT8
    case c10::ScalarType::Float8_e4m3fn: return "fp8e4m3fn";
    case c10::ScalarType::Float8_e5m2: return "fp8e5m2";
#endif
#if PYPTO_HAS_FLOAT8_E8M0
    case c10::ScalarType::Float8_e8m0fnu: return "fp8e8m0";
#endif
    default: break;
  }
  throw std::invalid_argument(std::string("no PyPTO dtype for ") + c10::toString(type));
}

std::string torch_dtype_repr(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat: return "torch.float32";
    case c10::kDouble: return "torch.float64";
    case c10::kHalf: return "torch.float16";
    case c10::kBFloat16: return "torch.bfloat16";
    case c10::kChar: return "torch.int8";
    case c10::kShort: return "torch.int16";
    case c10::kInt: return "torch.int32";
    case c10::kLong: return "torch.int64";
    case c10::kByte: return "torch.uint8";
    case c10::kBool: return "torch.bool";
    case c10::kComplexFloat: return "torch.complex64";
    case c10::kComplexDouble: return "torch.complex128";
#if PYPTO_HAS_FLOAT8
    case c10::ScalarType::Float8_e4m3fn: return "torch.float8_e4m3fn";
    case c10::ScalarType::Float8_e5m2: return "torch.float8_e5m2";
#endif
#if PYPTO_HAS_FLOAT8_E8M0
    case c10::ScalarType::Float8_e8m0fnu: return "torch.float8_e8m0fnu";
#endif
    default: return std::string("torch.") + c10::toString(type);
  }
}

}  // namespace pypto_golden
