#include "ranks/changed_bytes.h"

#include <ATen/ATen.h>

#include <cstring>
#include <numeric>

namespace pypto_golden::ranks {
namespace {

// The granules (Unit: an integer of the granule's size) of `now` that differ from `before`:
// their runs of bytes, or past kMaxRuns runs, a mask of them.
template <typename Unit>
std::optional<ChangedBytes> changes_in(const at::Tensor& now, const at::Tensor& before) {
  constexpr int64_t size = sizeof(Unit);
  constexpr int64_t kBlock = 4096 / size;  // equal stretches are skipped by memcmp
  const auto* a = reinterpret_cast<const Unit*>(now.const_data_ptr<uint8_t>());
  const auto* b = reinterpret_cast<const Unit*>(before.const_data_ptr<uint8_t>());
  const int64_t units = now.numel() / size;
  std::vector<int64_t> runs;  // byte offset, byte length
  for (int64_t i = 0; i < units;) {
    while (i + kBlock <= units && std::memcmp(a + i, b + i, kBlock * size) == 0) i += kBlock;
    while (i < units && a[i] == b[i]) ++i;
    if (i == units) break;
    if (static_cast<int64_t>(runs.size()) == 2 * kMaxRuns) {
      const c10::ScalarType unit = c10::CppTypeToScalarType<Unit>::value;
      return ChangedBytes{at::Tensor(), {now}, now.view(unit).ne(before.view(unit))};
    }
    const int64_t start = i;
    while (i < units && a[i] != b[i]) ++i;
    runs.push_back(start * size);
    runs.push_back((i - start) * size);
  }
  if (runs.empty()) return std::nullopt;
  ChangedBytes out;
  out.runs = at::empty({static_cast<int64_t>(runs.size()) / 2, 2}, at::kLong);
  std::memcpy(out.runs.data_ptr<int64_t>(), runs.data(), runs.size() * sizeof(int64_t));
  for (size_t k = 0; k < runs.size(); k += 2) out.pieces.push_back(now.narrow(0, runs[k], runs[k + 1]));
  return out;
}

}  // namespace

int64_t effective_granule(int64_t bytes, int64_t granule) { return bytes % granule == 0 ? granule : 1; }

int64_t granule_of(int64_t element_size, int64_t offset, int64_t granule_so_far) {
  const int64_t g = std::gcd(std::gcd(element_size, offset), granule_so_far);
  return std::gcd(g, int64_t{8});
}

std::optional<ChangedBytes> find_changes(const at::Tensor& now, const at::Tensor& before, int64_t granule) {
  switch (effective_granule(now.numel(), granule)) {
    case 8: return changes_in<int64_t>(now, before);
    case 4: return changes_in<int32_t>(now, before);
    case 2: return changes_in<int16_t>(now, before);
    default: return changes_in<uint8_t>(now, before);
  }
}

void apply_mask(const ChangedBytes& changes, const at::Tensor& host, int64_t granule) {
  granule = effective_granule(host.numel(), granule);
  uint8_t* dst = host.data_ptr<uint8_t>();
  const auto* src = changes.pieces.at(0).const_data_ptr<uint8_t>();
  const auto* m = changes.mask.const_data_ptr<bool>();
  for (int64_t u = 0; u < changes.mask.numel(); ++u)
    if (m[u]) std::memcpy(dst + u * granule, src + u * granule, static_cast<size_t>(granule));
}

}  // namespace pypto_golden::ranks
