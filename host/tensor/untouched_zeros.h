// Zero-filled host tensors whose pages cost nothing until written. A model script's specs
// leave most weights at zero (no init_value, or 0); filling them touched every page of
// several GiB, and on a virtual machine the page faults and the kernel's clearing of each
// page cost far more than the fill itself. Fresh anonymous memory is already zero: reads of
// a page never written share the kernel's zero page, and only written pages take memory.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>

#include <cstddef>

namespace pypto_golden {

// Tensors of at least this many bytes get fresh pages; smaller ones are at::zeros (the heap
// may hand back used memory, and a fill costs less than a mapping).
constexpr size_t kUntouchedZerosFrom = size_t{2} << 20;

// at::zeros(shape, dtype) on the CPU. From kUntouchedZerosFrom bytes: fresh pages from the
// source set below when it has them, else an anonymous mapping of its own. Either is a
// storage torch can share copy-on-write like any other (a written clone copies through
// torch's CPU allocator). Throws std::bad_alloc when the mapping fails.
at::Tensor untouched_zeros(at::IntArrayRef shape, at::ScalarType dtype);

// Fresh pages that must come from somewhere else: the memory files local rank workers map
// (ranks/shared_host_memory.h), which a zero tensor must live in too. The source returns an
// empty DataPtr when it has no fresh pages for `bytes` (they are then mapped here).
// Returns the source set before.
using FreshPagesSource = c10::DataPtr (*)(size_t bytes);
FreshPagesSource set_fresh_pages_source(FreshPagesSource source);

// Whether `t`'s storage is such a mapping (tests).
bool is_untouched_zeros_storage(const at::Tensor& t);

}  // namespace pypto_golden
