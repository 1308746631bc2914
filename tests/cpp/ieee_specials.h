// Test inputs that hold the values IEEE operations treat apart, for bit-for-bit comparisons.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <limits>

// Random values with NaN, the infinities, signed zeros and subnormals at every fifth element.
inline at::Tensor awkward(int64_t rows, int64_t cols, uint64_t seed) {
  at::Tensor t = at::randn({rows, cols}) * 3;
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1e-40f, -1e-40f};
  auto* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); i += 5) p[i] = specials[(static_cast<uint64_t>(i) / 5 + seed) % 7];
  return t;
}
