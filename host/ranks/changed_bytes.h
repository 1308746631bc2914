// What a launch in a worker changed of one region of the host's bytes, and how the host
// writes only that back: ranks that write other parts of the same host tensor keep theirs.
// Changes are found per granule, the bytes one element write covers (the largest power of
// two up to 8 that divides every element size and offset of the region's views), so a
// changed element comes back whole even where some of its bytes kept their value.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace pypto_golden::ranks {

struct ChangedBytes {
  // Runs form, for a few runs: int64 [n, 2], each run's byte offset and length, and `pieces`
  // the run's bytes each (views of the worker's region: sent without a copy, received
  // straight into the host's memory). Mask form: `runs` undefined, `pieces` the whole region
  // and `mask` one bool per granule.
  at::Tensor runs;
  std::vector<at::Tensor> pieces;
  at::Tensor mask;
};

// The most runs sent as pieces; a region changed in more places comes back with a mask.
constexpr int64_t kMaxRuns = 64;

// The granules of `now` that differ from `before` (uint8, same length); nullopt when none do.
std::optional<ChangedBytes> find_changes(const at::Tensor& now, const at::Tensor& before, int64_t granule);

// The granule changes of a region of `bytes` are found in: `granule`, or 1 when it does not
// divide the region.
int64_t effective_granule(int64_t bytes, int64_t granule);

// The granule for a region whose views have these element sizes and byte offsets from its
// start.
int64_t granule_of(int64_t element_size, int64_t offset, int64_t granule_so_far);

// Writes the mask form's changed granules into `host` (the region's uint8 view of the
// host's memory); the runs form was received in place.
void apply_mask(const ChangedBytes& changes, const at::Tensor& host, int64_t granule);

}  // namespace pypto_golden::ranks
