#include "sim/strided_view.h"

#include <c10/core/TensorImpl.h>
#include <c10/util/MaybeOwned.h>
#include <c10/util/SmallVector.h>

#include <vector>

namespace pypto_golden::sim {
namespace {

// A view holding its storage without a reference: made and dropped without touching the
// storage's count. Copies of its storage (ATen's own views of it) are counted as usual.
class BorrowedViewImpl final : public c10::TensorImpl {
 public:
  BorrowedViewImpl(const c10::Storage& storage, c10::DispatchKeySet keys, caffe2::TypeMeta dtype)
      : TensorImpl(VIEW, c10::MaybeOwnedTraits<c10::Storage>::createBorrow(storage), keys, dtype) {}
  ~BorrowedViewImpl() override { forget_storage(); }
  // Instead of TensorImpl's, which drops the storage (when weak references keep the object).
  void release_resources() override { forget_storage(); }

 private:
  void forget_storage() {
    if (storage_) (void)storage_.unsafeReleaseStorageImpl();
  }
};

}  // namespace

at::Tensor strided_view(const at::Tensor& base, at::IntArrayRef sizes, at::IntArrayRef strides,
                        int64_t storage_offset, Ownership ownership) {
  c10::intrusive_ptr<c10::TensorImpl> impl;
  if (ownership == Ownership::Borrowed)
    impl = c10::make_intrusive<BorrowedViewImpl>(base.storage(), base.key_set(), base.dtype());
  else
    impl = c10::make_intrusive<c10::TensorImpl>(c10::TensorImpl::VIEW, c10::Storage(base.storage()), base.key_set(),
                                                base.dtype());
  impl->set_sizes_and_strides(sizes, strides, storage_offset);
  return at::Tensor(std::move(impl));
}

at::Tensor window_view(const at::Tensor& base, at::IntArrayRef offset, at::IntArrayRef extent,
                       Ownership ownership) {
  c10::SmallVector<int64_t, 6> sizes(base.sizes().begin(), base.sizes().end());
  int64_t storage_offset = base.storage_offset();
  bool whole = true;
  for (size_t k = 0; k < offset.size(); ++k) {
    const int64_t axis = static_cast<int64_t>(k);
    whole = whole && offset[k] == 0 && extent[k] == sizes[k];
    storage_offset += offset[k] * base.stride(axis);
    sizes[k] = extent[k];
  }
  if (whole) return base;
  return strided_view(base, sizes, base.strides(), storage_offset, ownership);
}

at::Tensor corner_view(const at::Tensor& base, at::IntArrayRef extent) {
  // Offsets of zero for any rank ATen has, without building a vector per call.
  static constexpr int64_t kZeros[64] = {};
  if (extent.size() <= 64) return window_view(base, c10::IntArrayRef(kZeros, extent.size()), extent);
  return window_view(base, std::vector<int64_t>(extent.size(), 0), extent);
}

at::Tensor transposed_view(const at::Tensor& base, int64_t axis1, int64_t axis2) {
  c10::SmallVector<int64_t, 6> sizes(base.sizes().begin(), base.sizes().end());
  c10::SmallVector<int64_t, 6> strides(base.strides().begin(), base.strides().end());
  const auto axis = [&](int64_t k) { return static_cast<size_t>(k < 0 ? k + base.dim() : k); };
  std::swap(sizes[axis(axis1)], sizes[axis(axis2)]);
  std::swap(strides[axis(axis1)], strides[axis(axis2)]);
  return strided_view(base, sizes, strides, base.storage_offset());
}

bool shares_memory(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined() || !b.defined() || !a.has_storage() || !b.has_storage()) return false;
  if (a.numel() == 0 || b.numel() == 0) return false;
  const char* a0 = static_cast<const char*>(a.const_data_ptr());
  const char* b0 = static_cast<const char*>(b.const_data_ptr());
  // No bytes (a meta tensor standing for a handed-over output): only its own storage.
  if (a0 == nullptr || b0 == nullptr) return a.storage().is_alias_of(b.storage());
  auto extent = [](const at::Tensor& t) {
    const at::IntArrayRef sizes = t.sizes(), strides = t.strides();
    int64_t last = 0;
    for (size_t k = 0; k < sizes.size(); ++k) last += (sizes[k] - 1) * strides[k];
    return (last + 1) * static_cast<int64_t>(t.element_size());
  };
  const char* a1 = a0 + extent(a);
  const char* b1 = b0 + extent(b);
  return a0 < b1 && b0 < a1;
}

}  // namespace pypto_golden::sim
