#include "tensor/lazy_copy.h"

#include <ATen/ATen.h>

// torch 2.3 and newer share storages copy-on-write; older ones get plain clones.
#if __has_include(<c10/core/impl/COW.h>)
#include <ATen/ops/_lazy_clone.h>
#include <c10/core/impl/COW.h>
#define PYPTO_GOLDEN_HAVE_COW 1
#else
#define PYPTO_GOLDEN_HAVE_COW 0
#endif

namespace pypto_golden {
namespace {

bool cow(const at::Tensor& t) {
#if PYPTO_GOLDEN_HAVE_COW
  return t.has_storage() && c10::impl::cow::is_cow_data_ptr(t.storage().data_ptr());
#else
  (void)t;
  return false;
#endif
}

}  // namespace

bool shareable(const at::Tensor& t) {
#if PYPTO_GOLDEN_HAVE_COW
  // _lazy_clone refuses storages whose DataPtr has its own context (it cannot wrap them).
  return t.has_storage() && t.device().is_cpu() &&
         (cow(t) || c10::impl::cow::has_simple_data_ptr(*t.storage().unsafeGetStorageImpl()));
#else
  (void)t;
  return false;
#endif
}

at::Tensor lazy_copy(const at::Tensor& t) {
#if PYPTO_GOLDEN_HAVE_COW
  if (shareable(t)) return at::_lazy_clone(t);
#endif
  return t.clone();
}

bool still_shared(const at::Tensor& copy, const at::Tensor& original) {
  return cow(copy) && cow(original) && copy.const_data_ptr() == original.const_data_ptr();
}

}  // namespace pypto_golden
