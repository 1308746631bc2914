#include "ranks/changed_bytes.h"

#include <ATen/ATen.h>

#include <cstring>
#include <numeric>

namespace pypto_golden::ranks {
namespace {

// Appends the runs of units where `now` and `before` differ, as [byte offset, byte length];
// false when there are more than kMaxRuns.
template <typename Unit>
bool find_runs(const uint8_t* now_bytes, const uint8_t* before_bytes, int64_t units, std::vector<int64_t>& runs) {
  constexpr int64_t kBlock = 4096 / sizeof(Unit);  // equal stretches are skipped by memcmp
  const auto* now = reinterpret_cast<const Unit*>(now_bytes);
  const auto* before = reinterpret_cast<const Unit*>(before_bytes);
  constexpr int64_t size = sizeof(Unit);
  for (int64_t i = 0; i < units;) {
    while (i + kBlock <= units && std::memcmp(now + i, before + i, kBlock * size) == 0) i += kBlock;
    while (i < units && now[i] == before[i]) ++i;
    if (i == units) break;
    if (static_cast<int64_t>(runs.size()) == 2 * kMaxRuns) return false;
    const int64_t start = i;
    while (i < units && now[i] != before[i]) ++i;
    runs.push_back(start * size);
    runs.push_back((i - start) * size);
  }
  return true;
}

}  // namespace

int64_t effective_granule(int64_t bytes, int64_t granule) { return bytes % granule == 0 ? granule : 1; }

int64_t granule_of(int64_t element_size, int64_t offset, int64_t granule_so_far) {
  const int64_t g = std::gcd(std::gcd(element_size, offset), granule_so_far);
  return std::gcd(g, int64_t{8});
}

std::optional<ChangedBytes> find_changes(const at::Tensor& now, const at::Tensor& before, int64_t granule) {
  granule = effective_granule(now.numel(), granule);
  const auto* a = now.const_data_ptr<uint8_t>();
  const auto* b = before.const_data_ptr<uint8_t>();
  const int64_t units = now.numel() / granule;
  std::vector<int64_t> runs;
  const bool few = granule == 8   ? find_runs<uint64_t>(a, b, units, runs)
                   : granule == 4 ? find_runs<uint32_t>(a, b, units, runs)
                   : granule == 2 ? find_runs<uint16_t>(a, b, units, runs)
                                  : find_runs<uint8_t>(a, b, units, runs);
  if (!few) {
    const c10::ScalarType unit = granule == 8 ? at::kLong : granule == 4 ? at::kInt : granule == 2 ? at::kShort : at::kByte;
    return ChangedBytes{at::Tensor(), {now}, now.view(unit).ne(before.view(unit))};
  }
  if (runs.empty()) return std::nullopt;
  ChangedBytes out;
  out.runs = at::empty({static_cast<int64_t>(runs.size()) / 2, 2}, at::kLong);
  std::memcpy(out.runs.data_ptr<int64_t>(), runs.data(), runs.size() * sizeof(int64_t));
  for (size_t k = 0; k < runs.size(); k += 2) out.pieces.push_back(now.narrow(0, runs[k], runs[k + 1]));
  return out;
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
