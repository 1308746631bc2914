#include "sim/write_log.h"

#include <algorithm>

namespace pypto_golden::sim {

void WriteLog::track(const at::Tensor& t) {
  Tracked k;
  k.tensor = t;
  k.storage = t.storage().unsafeGetStorageImpl();
  k.offset = t.storage_offset();
  k.numel = t.numel();
  k.bits = std::make_unique<std::atomic<uint64_t>[]>(static_cast<size_t>((k.numel + 63) / 64));
  tracked_.push_back(std::move(k));
}

void WriteLog::mark(Tracked& t, int64_t begin, int64_t end) {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, t.numel);
  if (begin >= end) return;
  const int64_t first = begin >> 6, last = (end - 1) >> 6;
  const uint64_t head = ~uint64_t{0} << (begin & 63);
  const uint64_t tail = ~uint64_t{0} >> (63 - ((end - 1) & 63));
  // A whole word is all ones whatever another thread ORs into it at the same time: a
  // store, cheaper than a locked OR.
  const auto set = [&](int64_t w, uint64_t bits) {
    if (bits == ~uint64_t{0}) t.bits[w].store(bits, std::memory_order_relaxed);
    else t.bits[w].fetch_or(bits, std::memory_order_relaxed);
  };
  if (first == last) return set(first, head & tail);
  set(first, head);
  for (int64_t w = first + 1; w < last; ++w) t.bits[w].store(~uint64_t{0}, std::memory_order_relaxed);
  set(last, tail);
}

void WriteLog::mark_box(Tracked& t, int64_t start, at::IntArrayRef sizes, at::IntArrayRef strides) {
  // The innermost axes that make one run of consecutive elements (a window's rows, or all
  // of it), found once; the axes outside them are walked.
  size_t inner = sizes.size();
  int64_t run = 1;
  while (inner > 0 && (sizes[inner - 1] == 1 || strides[inner - 1] == run)) run *= sizes[--inner];
  mark_runs(t, start, sizes, strides, 0, inner, run);
}

void WriteLog::mark_runs(Tracked& t, int64_t start, at::IntArrayRef sizes, at::IntArrayRef strides, size_t dim,
                         size_t inner, int64_t run) {
  if (dim == inner) return mark(t, start, start + run);
  const int64_t stride = strides[dim];
  if (dim + 1 == inner) {
    for (int64_t i = 0; i < sizes[dim]; ++i) mark(t, start + i * stride, start + i * stride + run);
    return;
  }
  for (int64_t i = 0; i < sizes[dim]; ++i) mark_runs(t, start + i * stride, sizes, strides, dim + 1, inner, run);
}

void WriteLog::note(const at::Tensor& view, at::IntArrayRef corner) {
  if (!view.has_storage()) return;
  const void* storage = view.storage().unsafeGetStorageImpl();
  for (Tracked& t : tracked_) {
    if (t.storage != storage) continue;
    const at::IntArrayRef sizes = corner.empty() ? view.sizes() : corner;
    for (int64_t s : sizes)
      if (s <= 0) return;
    if (view.element_size() != t.tensor.element_size()) {
      // Not a write a write-only parameter makes; counting all of it written can only
      // leave unwritten elements unpoisoned, never poison a written one.
      mark(t, 0, t.numel);
      return;
    }
    mark_box(t, view.storage_offset() - t.offset, sizes, view.strides());
    return;
  }
}

ElementRuns WriteLog::unwritten(size_t k) const {
  const Tracked& t = tracked_.at(k);
  ElementRuns runs;
  const int64_t words = (t.numel + 63) / 64;
  int64_t open = -1;  // start of the gap being walked, -1 when none
  for (int64_t w = 0; w < words; ++w) {
    const uint64_t bits = t.bits[w].load(std::memory_order_relaxed);
    if (bits == ~uint64_t{0} && open < 0) continue;
    if (bits == 0 && open >= 0) continue;
    for (int64_t b = 0; b < 64 && w * 64 + b < t.numel; ++b) {
      const bool written = bits >> b & 1u;
      if (!written && open < 0) open = w * 64 + b;
      if (written && open >= 0) {
        runs.emplace_back(open, w * 64 + b);
        open = -1;
      }
    }
  }
  if (open >= 0) runs.emplace_back(open, t.numel);
  return runs;
}

}  // namespace pypto_golden::sim
