// The 8-bit float dtypes, where the torch built against has them: float8_e4m3fn and
// float8_e5m2 since torch 2.1, float8_e8m0fnu since torch 2.7. Without them the PyPTO
// names are unknown dtypes to the simulator (the frontend names the torch needed).
#pragma once

#include <c10/core/ScalarType.h>

#if __has_include(<c10/util/Float8_e4m3fn.h>)
#define PYPTO_HAS_FLOAT8 1
#include <c10/util/Float8_e4m3fn.h>
#include <c10/util/Float8_e5m2.h>
#else
#define PYPTO_HAS_FLOAT8 0
#endif
#if __has_include(<c10/util/Float8_e8m0fnu.h>)
#define PYPTO_HAS_FLOAT8_E8M0 1
#include <c10/util/Float8_e8m0fnu.h>
#else
#define PYPTO_HAS_FLOAT8_E8M0 0
#endif

namespace pypto_golden {

// fp8e4m3fn, fp8e5m2 or fp8e8m0: storage only; arithmetic converts through fp32.
inline bool is_float8(c10::ScalarType t) {
#if PYPTO_HAS_FLOAT8
  if (t == c10::ScalarType::Float8_e4m3fn || t == c10::ScalarType::Float8_e5m2) return true;
#endif
#if PYPTO_HAS_FLOAT8_E8M0
  if (t == c10::ScalarType::Float8_e8m0fnu) return true;
#endif
  (void)t;
  return false;
}

}  // namespace pypto_golden
