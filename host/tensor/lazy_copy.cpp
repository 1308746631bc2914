#include "tensor/lazy_copy.h"

#include <ATen/ATen.h>
#include <ATen/ops/_lazy_clone.h>
#include <c10/core/impl/COW.h>

namespace pypto_golden {
namespace {

bool cow(const at::Tensor& t) { return t.has_storage() && c10::impl::cow::is_cow_data_ptr(t.storage().data_ptr()); }

}  // namespace

bool shareable(const at::Tensor& t) {
  // _lazy_clone refuses storages whose DataPtr has its own context (it cannot wrap them).
  return t.has_storage() && t.device().is_cpu() &&
         (cow(t) || c10::impl::cow::has_simple_data_ptr(*t.storage().unsafeGetStorageImpl()));
}

at::Tensor lazy_copy(const at::Tensor& t) { return shareable(t) ? at::_lazy_clone(t) : t.clone(); }

bool still_shared(const at::Tensor& copy, const at::Tensor& original) {
  return cow(copy) && cow(original) && copy.const_data_ptr() == original.const_data_ptr();
}

}  // namespace pypto_golden
