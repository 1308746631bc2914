// Copies that cost nothing until written: torch's copy-on-write storage (torch 2.3 and
// newer; with an older torch these are plain clones).
#pragma once

#include <ATen/core/Tensor.h>

namespace pypto_golden {

// A copy of `t` with the semantics of t.clone(): writes to either side stay on that side.
// When torch can share t's storage copy-on-write, no bytes move until one side writes (and
// then that side copies); otherwise (a storage torch cannot share, such as one wrapping a
// NumPy array) it is an ordinary clone.
at::Tensor lazy_copy(const at::Tensor& t);

// Whether lazy_copy(t) shares t's bytes (rather than cloning them).
bool shareable(const at::Tensor& t);

// Whether `copy` (from lazy_copy) still shares its bytes with `original`: neither side has
// written since.
bool still_shared(const at::Tensor& copy, const at::Tensor& original);

}  // namespace pypto_golden
