#include "report/task_graph.h"

#include <algorithm>
#include <cstdint>
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
                                 const std::vector<sim::RecordedTensor>& tensors, const std::vector<bool>& untracked) {
  std::vector<std::vector<Writer>> live(tensors.size());  // per tensor: writes not yet covered
  std::vector<TaskEdge> edges;
  for (size_t succ = 0; succ < tasks.size(); ++succ) {
    if (succ < untracked.size() && untracked[succ]) continue;
    std::map<std::pair<size_t, int>, bool> found;  // (pred, tensor) -> covered
    std::vector<std::pair<int, Region>> writes;
    for (const auto& w : tasks[succ].windows) {
      const auto& t = tensors[static_cast<size_t>(w.tensor)];
      if (t.manual_dep || w.untracked) continue;
      Region r = region_of(w, t);
      for (const auto& p : live[static_cast<size_t>(w.tensor)]) {
        if (p.task == succ || !overlaps(p.region, r, t)) continue;
        auto [it, fresh] = found.try_emplace({p.task, w.tensor}, true);
        it->second = it->second && covers(p.region, r);
      }
      if (w.write) writes.push_back({w.tensor, std::move(r)});
    }
    for (const auto& [key, covered] : found) edges.push_back({key.first, succ, key.second, covered, false});
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

namespace {

// The smallest window holding `windows` (of one tensor): a box of its shape when they all
// are, else the span of storage they cover.
sim::TaskWindow hull(const std::vector<const sim::TaskWindow*>& windows, const sim::RecordedTensor& t) {
  sim::TaskWindow out;
  out.tensor = windows.front()->tensor;
  out.write = windows.front()->write;
  std::vector<Region> regions;
  bool boxes = true;
  for (const auto* w : windows) {
    regions.push_back(region_of(*w, t));
    boxes = boxes && regions.back().box;
  }
  if (boxes) {
    std::vector<int64_t> lo = regions.front().lo, hi = regions.front().hi;
    for (const auto& r : regions)
      for (size_t k = 0; k < lo.size(); ++k) {
        lo[k] = std::min(lo[k], r.lo[k]);
        hi[k] = std::max(hi[k], r.hi[k]);
      }
    out.strides.assign(t.shape.size(), 1);
    for (size_t k = t.shape.size(); k-- > 1;) out.strides[k - 1] = out.strides[k] * t.shape[k];
    for (size_t k = 0; k < lo.size(); ++k) {
      out.start_offset += lo[k] * out.strides[k];
      out.shape.push_back(hi[k] - lo[k]);
    }
    return out;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& r : regions) {
    const auto [a, b] = flat(r, t);
    lo = std::min(lo, a);
    hi = std::max(hi, b);
  }
  out.start_offset = lo;
  out.shape = {hi - lo};
  out.strides = {1};
  return out;
}

std::vector<sim::TaskWindow> launch_args(const std::vector<sim::TaskRecord>& tasks, const std::vector<size_t>& records,
                                         const std::vector<sim::RecordedTensor>& tensors) {
  std::vector<std::pair<std::pair<int, bool>, std::vector<const sim::TaskWindow*>>> groups;  // by first use
  for (const size_t r : records)
    for (const auto& w : tasks[r].windows) {
      const std::pair<int, bool> key{w.tensor, w.write};
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
      it->second.push_back(&w);
    }
  std::vector<sim::TaskWindow> args;
  for (const auto& g : groups) args.push_back(hull(g.second, tensors[static_cast<size_t>(g.first.first)]));
  return args;
}

}  // namespace

TaskGraph task_graph(const std::vector<sim::TaskRecord>& given, const std::vector<sim::SubmitRecord>& submits,
                     const std::vector<sim::RecordedTensor>& tensors,
                     const std::vector<sim::TaskRecorder::TensorAlias>& aliases) {
  // A window of an alias's source is its window of the target (one per alias).
  std::vector<sim::TaskRecord> translated;
  if (!aliases.empty()) {
    translated = given;
    for (auto& t : translated) {
      std::vector<sim::TaskWindow> windows;
      for (auto& w : t.windows) {
        bool aliased = false;
        for (const auto& a : aliases)
          if (a.source == w.tensor) {
            windows.push_back(a.window);
            windows.back().write = w.write;
            aliased = true;
          }
        if (!aliased) windows.push_back(std::move(w));
      }
      t.windows = std::move(windows);
    }
  }
  const std::vector<sim::TaskRecord>& tasks = aliases.empty() ? given : translated;
  TaskGraph g;
  std::map<int64_t, const sim::SubmitRecord*> by_id;
  std::map<int64_t, size_t> node_of_id;
  for (const auto& s : submits) {
    by_id[s.id] = &s;
    if (s.kind == sim::SubmitKind::Join) continue;
    node_of_id[s.id] = g.nodes.size();
    g.nodes.push_back({&s, {}, {}});
  }
  // Each node's records by start; a record that names no submit is a node of its own.
  std::vector<size_t> node_of_record(tasks.size());
  std::vector<bool> untracked(tasks.size(), false);
  for (size_t r = 0; r < tasks.size(); ++r) {
    auto it = node_of_id.find(tasks[r].submit);
    if (it == node_of_id.end()) {
      node_of_record[r] = g.nodes.size();
      g.nodes.push_back({nullptr, {r}, tasks[r].windows});
      continue;
    }
    node_of_record[r] = it->second;
    g.nodes[it->second].records.push_back(r);
    untracked[r] = g.nodes[it->second].submit->manual;
  }
  for (auto& n : g.nodes)
    if (n.submit) n.args = n.records.size() == 1 ? tasks[n.records[0]].windows : launch_args(tasks, n.records, tensors);

  g.record_edges = task_edges(tasks, tensors, untracked);
  std::map<std::tuple<size_t, size_t, int>, size_t> seen;  // (succ, pred, tensor) -> edge
  std::vector<TaskEdge> edges;
  const auto add = [&](size_t pred, size_t succ, int tensor, bool covered, bool explicit_dep) {
    if (pred == succ) return;
    auto [it, fresh] = seen.try_emplace({succ, pred, tensor}, edges.size());
    if (fresh)
      edges.push_back({pred, succ, tensor, covered, explicit_dep});
    else
      edges[it->second].covered = edges[it->second].covered && covered;
  };
  for (const auto& e : g.record_edges)
    add(node_of_record[e.pred], node_of_record[e.succ], e.tensor, e.covered, false);
  for (size_t succ = 0; succ < g.nodes.size(); ++succ) {
    if (!g.nodes[succ].submit) continue;
    // A join's ids are each iteration's task (they may be joins too).
    std::vector<int64_t> ids = g.nodes[succ].submit->deps;
    std::set<int64_t> expanded;
    while (!ids.empty()) {
      const int64_t id = ids.back();
      ids.pop_back();
      if (!expanded.insert(id).second) continue;
      auto s = by_id.find(id);
      if (s == by_id.end()) continue;  // not a task of this dispatch
      if (s->second->kind == sim::SubmitKind::Join) {
        ids.insert(ids.end(), s->second->deps.begin(), s->second->deps.end());
        continue;
      }
      auto pred = node_of_id.find(id);
      if (pred != node_of_id.end()) add(pred->second, succ, -1, false, true);
    }
  }
  // Node numbers by submission; edges by successor, then predecessor, then tensor.
  std::sort(edges.begin(), edges.end(), [](const TaskEdge& a, const TaskEdge& b) {
    return std::tie(a.succ, a.pred, a.explicit_dep, a.tensor) < std::tie(b.succ, b.pred, b.explicit_dep, b.tensor);
  });
  g.edges = std::move(edges);
  return g;
}

}  // namespace pypto_golden
