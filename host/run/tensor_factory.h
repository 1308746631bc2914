// Host tensors made from TensorSpec.init_value (the rules are README's "Specs" section).
#pragma once

#include "run/native_spec.h"

namespace pypto_golden {

// None -> zeros; int/float/bool -> filled; torch.Tensor -> converted copy (never the
// caller's object; copy-on-write when init_tensor_shared); torch.randn/rand/zeros/ones ->
// called natively with the spec's shape and dtype (same global generator as Python, so
// torch.manual_seed gives the same data); any other callable -> its result converted. A
// callable's result whose shape differs from the spec is a SpecError; anything else is a
// TypeError.
at::Tensor create_host_tensor(const NativeSpec& spec);

// Whether the spec's init_value asks for zeros (None, 0, 0.0, False, torch.zeros; not -0.0).
// They are made as untouched_zeros: memory only where something writes them.
bool zero_init(const NativeSpec& spec);

// Whether the spec's init_value is a tensor the run shares copy-on-write instead of copying
// (a contiguous CPU tensor of the spec's shape and dtype whose storage torch can share):
// it costs the run no memory until one side writes.
bool init_tensor_shared(const NativeSpec& spec);

}  // namespace pypto_golden
