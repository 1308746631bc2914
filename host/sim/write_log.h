// Which elements of a dispatch's pure Out tensors the kernel wrote, so that only the others
// get the poison (or zero) start, after the run. This holds for a pure Out the body only
// ever writes (ParamInfo::write_only): no element of it is read, so one not yet written
// cannot be observed before the run ends, and the poison still marks exactly the elements
// never written, as when the whole tensor was filled first. It saves a pass over every
// such output.
#pragma once

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

// Runs [begin, end) of element indices of a contiguous tensor, in order.
using ElementRuns = std::vector<std::pair<int64_t, int64_t>>;

class WriteLog {
 public:
  // Tracks `t`, contiguous device memory the dispatch owns, from no element written.
  void track(const at::Tensor& t);
  bool empty() const { return tracked_.empty(); }
  size_t size() const { return tracked_.size(); }
  const at::Tensor& tensor(size_t k) const { return tracked_[k].tensor; }

  // Notes the corner `corner` (its shape; empty = all of it) at the start of `view` as
  // written. A view of memory not tracked is not noted. Safe from several threads at once.
  void note(const at::Tensor& view, at::IntArrayRef corner);

  // The runs [begin, end) of element indices of tracked tensor k never noted, in order.
  ElementRuns unwritten(size_t k) const;

 private:
  struct Tracked {
    at::Tensor tensor;
    const void* storage = nullptr;
    int64_t offset = 0;  // the tensor's storage offset, in elements
    int64_t numel = 0;
    // One bit per element, set once written. Threads writing neighbouring windows share the
    // words at their edges, hence atomics.
    std::unique_ptr<std::atomic<uint64_t>[]> bits;
  };
  void mark(Tracked& t, int64_t begin, int64_t end);
  void mark_box(Tracked& t, int64_t start, at::IntArrayRef sizes, at::IntArrayRef strides);
  // The runs of `run` consecutive elements of the box from axis `dim` on (axes `inner` on
  // make one run).
  void mark_runs(Tracked& t, int64_t start, at::IntArrayRef sizes, at::IntArrayRef strides, size_t dim, size_t inner,
                 int64_t run);

  std::vector<Tracked> tracked_;
};

}  // namespace pypto_golden::sim
