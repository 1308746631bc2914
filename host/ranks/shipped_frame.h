// What a chip launch sends to a rank in another process: the host's variables its program
// reads. Scalars, strings and dtypes go as they are; a window view as its place in the
// window (the worker takes the same view of its own copy); a tensor of the host's memory
// as its place in one region of bytes per storage, the bytes of all the frame's views of
// that storage, so views that overlap on the host overlap the same way on the worker.
#pragma once

#include "ranks/shared_host_memory.h"
#include "sim/nodes.h"

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace pypto_golden::sim {
class CommDomain;
}

namespace pypto_golden::ranks {

struct ShippedFrame {
  nlohmann::json text;               // the slots and the regions' sizes
  std::vector<at::Tensor> regions;   // host side: uint8 views of the host's memory
  std::vector<int64_t> granules;     // per region: its granule (ranks/changed_bytes.h)
  std::vector<const void*> storages; // per region: the host storage it is of (its data pointer)
  std::vector<int64_t> starts;       // per region: its byte offset in that storage
};

// The variables `slots` (and the loop variables in messages) of the host's `frame`.
ShippedFrame pack_frame(const sim::Frame& frame, const std::vector<int>& slots, sim::CommDomain& domain);

// How a region of a resident the ranks keep (sim::RankResident) reaches a worker, as the
// host decides it: Keep, its bytes, and the worker keeps them after the launch under `key`;
// Use, no bytes, the worker uses what it kept under `key` (and keeps it again).
// `read_only`: the launch writes none of it (LaunchStmt::may_write_param), so the worker
// looks for no changes to send back.
enum class Keeping : int { No = 0, Keep = 1, Use = 2 };
struct RegionKeeping {
  Keeping how = Keeping::No;
  int64_t key = 0;
  bool read_only = false;
};
// Sets how each region of `frame` travels (all No, written, unless set).
void set_region_keeping(ShippedFrame& frame, const std::vector<RegionKeeping>& keeping);
std::vector<RegionKeeping> region_keeping(const nlohmann::json& text);

// The regions a worker on this machine maps from the host's memory (shared_host_memory.h)
// instead of receiving their bytes: set where the host decided so, nullopt elsewhere.
void set_region_sharing(ShippedFrame& frame, const std::vector<std::optional<SharedBytes>>& shared);
std::vector<std::optional<SharedBytes>> region_sharing(const nlohmann::json& text);

// The byte count of each region `text` ships, in order.
std::vector<int64_t> region_bytes(const nlohmann::json& text);
// The granule of each region `text` ships, in order.
std::vector<int64_t> region_granules(const nlohmann::json& text);

// A worker's frame for `text` on `rank`'s window copies and the received `regions` (uint8,
// kept alive by the caller while the frame is used): `frame` has its function and slot
// count set already.
void unpack_frame(const nlohmann::json& text, const std::vector<at::Tensor>& regions, sim::CommDomain& domain,
                  int rank, sim::Frame& frame);

}  // namespace pypto_golden::ranks
