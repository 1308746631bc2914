// Element copies between device tensor views of one dtype and shape. Kernels copy small
// tiles per loop iteration (loads, stores, writes into windows); ATen's copy_ sets up a
// TensorIterator for each, which costs more than the copy itself at tile sizes.
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden::sim {

// dst[...] = src[...]. Same dtype and shape: row by row with memcpy when both have unit-stride
// rows and do not overlap; anything else (dtype conversion, broadcasting, overlap, column
// gathers) goes through ATen's copy_.
void copy_values(const at::Tensor& dst, const at::Tensor& src);

}  // namespace pypto_golden::sim
