#include "report/task_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace pypto_golden {
namespace {

// A window as a box of its tensor's shape when it is one (its strides are the tensor's
// own), else as the flat range of storage elements it spans.
struct Region {
  bool box = false;
  std::vector<int64_t> lo, hi;  // box: per axis [lo, hi); flat: one entry
  bool empty = false;
};

Region region_of(const sim::TaskWindow& w, const sim::RecordedTensor& t) {
  Region r;
  for (const int64_t s : w.shape) r.empty = r.empty || s == 0;
  if (w.shape.size() == t.shape.size()) {
    std::vector<int64_t> strides(t.shape.size(), 1);
    for (size_t k = t.shape.size(); k-- > 1;) strides[k - 1] = strides[k] * t.shape[k];
    bool same = true;
    for (size_t k = 0; k < strides.size(); ++k) same = same && (w.shape[k] == 1 || w.strides[k] == strides[k]);
    if (same) {
      r.box = true;
      int64_t rest = w.start_offset;
      for (size_t k = 0; k < strides.size(); ++k) {
        r.lo.push_back(rest / strides[k]);
        rest %= strides[k];
        r.hi.push_back(r.lo.back() + w.shape[k]);
      }
      // A window whose start lies past an axis's extent (a view reshaped across axes) is
      // not a box of this shape.
      for (size_t k = 0; k < strides.size() && r.box; ++k) r.box = r.hi[k] <= t.shape[k];
      if (r.box) return r;
      r.lo.clear();
      r.hi.clear();
    }
  }
  int64_t last = w.start_offset;
  for (size_t k = 0; k < w.shape.size(); ++k) last += (w.shape[k] - 1) * w.strides[k];
  r.lo = {w.start_offset};
  r.hi = {last + 1};
  return r;
}

std::pair<int64_t, int64_t> flat(const Region& r, const sim::RecordedTensor& t) {
  if (!r.box) return {r.lo[0], r.hi[0]};
  int64_t lo = 0, last = 0;
  for (size_t k = 0; k < t.shape.size(); ++k) {
    lo = lo * t.shape[k] + r.lo[k];
    last = last * t.shape[k] + r.hi[k] - 1;
  }
  return {lo, last + 1};
}

bool overlaps(const Region& a, const Region& b, const sim::RecordedTensor& t) {
  if (a.empty || b.empty) return false;
  if (a.box && b.box) {
    for (size_t k = 0; k < a.lo.size(); ++k)
      if (a.hi[k] <= b.lo[k] || b.hi[k] <= a.lo[k]) return false;
    return true;
  }
  const auto [alo, ahi] = flat(a, t);
  const auto [blo, bhi] = flat(b, t);
  return alo < bhi && blo < ahi;
}

// Whether `inner` lies wholly inside `outer`.
bool covers(const Region& outer, const Region& inner) {
  if (inner.empty) return true;
  if (outer.box && inner.box) {
    for (size_t k = 0; k < outer.lo.size(); ++k)
      if (inner.lo[k] < outer.lo[k] || inner.hi[k] > outer.hi[k]) return false;
    return true;
  }
  if (outer.box || inner.box) return false;  // told apart only by their spans: not known to be covered
  return outer.lo[0] <= inner.lo[0] && inner.hi[0] <= outer.hi[0];
}

struct Writer {
  size_t task;
  Region region;
};

}  // namespace

std::vector<TaskEdge> task_edges(const std::vector<sim::TaskRecord>& tasks,
                                 const std::vector<sim::RecordedTensor>& tensors) {
  std::vector<std::vector<Writer>> live(tensors.size());  // per tensor: writes not yet covered
  std::vector<TaskEdge> edges;
  for (size_t succ = 0; succ < tasks.size(); ++succ) {
    std::map<std::pair<size_t, int>, bool> found;  // (pred, tensor) -> covered
    std::vector<std::pair<int, Region>> writes;
    for (const auto& w : tasks[succ].windows) {
      const auto& t = tensors[static_cast<size_t>(w.tensor)];
      Region r = region_of(w, t);
      for (const auto& p : live[static_cast<size_t>(w.tensor)]) {
        if (p.task == succ || !overlaps(p.region, r, t)) continue;
        auto [it, fresh] = found.try_emplace({p.task, w.tensor}, true);
        it->second = it->second && covers(p.region, r);
      }
      if (w.write) writes.push_back({w.tensor, std::move(r)});
    }
    for (const auto& [key, covered] : found) edges.push_back({key.first, succ, key.second, covered});
    for (auto& write : writes) {  // (not a structured binding: clang 14 cannot capture one)
      const Region& r = write.second;
      auto& list = live[static_cast<size_t>(write.first)];
      list.erase(std::remove_if(list.begin(), list.end(), [&](const Writer& p) { return covers(r, p.region); }),
                 list.end());
      list.push_back({succ, std::move(write.second)});
    }
  }
  return edges;
}

}  // namespace pypto_golden
