#include "report/dfx_outputs.h"

#include "snapshot/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace pypto_golden {
namespace {

using nlohmann::json;

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

void write_json(const std::filesystem::path& path, const json& doc, bool lines = false) {
  const std::string text = lines ? doc.get<std::string>() : doc.dump(1) + "\n";
  write_file_atomically(path, [&](int fd) { write_all(fd, text.data(), text.size(), path); });
}

std::string where(const DfxRun& run, int line) {
  return std::filesystem::path(run.source_file).filename().string() + ":" + std::to_string(line);
}

json records(const DfxRun& run, const std::vector<sim::TaskRecord>& tasks) {
  json list = json::array();
  for (size_t k = 0; k < tasks.size(); ++k) {
    const auto& t = tasks[k];
    list.push_back({{"task_id", k}, {"func_name", *t.name}, {"device", t.device}, {"worker", t.lane},
                    {"start_us", us(t.start_ns)}, {"end_us", us(t.end_ns)}, {"source", where(run, t.line)},
                    {"depth", t.depth}});
  }
  return {{"format", "pypto-golden-chip-swimlane"}, {"version", 1}, {"kernel", run.kernel},
          {"platform", run.platform}, {"level", run.swimlane_level}, {"source_file", run.source_file},
          {"time_unit", "us since the dispatch started"}, {"tasks", list}};
}

// Chrome's trace-event format: a process per device, a thread per worker lane, a complete
// ("X") slice per task; a region nested in another on one lane lies inside it in time, so
// the viewer nests the slices.
json trace(const DfxRun& run, const std::vector<sim::TaskRecord>& tasks) {
  json events = json::array();
  std::set<std::pair<int, int>> lanes;
  std::set<int> devices;
  for (const auto& t : tasks) {
    devices.insert(t.device);
    lanes.insert({t.device, t.lane});
  }
  for (const int d : devices)
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", d}, {"tid", 0},
                      {"args", {{"name", "device " + std::to_string(d) + " (" + run.kernel + ")"}}}});
  for (const auto& [d, lane] : lanes)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", lane},
                      {"args", {{"name", "worker " + std::to_string(lane)}}}});
  for (size_t k = 0; k < tasks.size(); ++k) {
    const auto& t = tasks[k];
    events.push_back({{"name", *t.name}, {"cat", "task"}, {"ph", "X"}, {"ts", us(t.start_ns)},
                      {"dur", us(t.end_ns - t.start_ns)}, {"pid", t.device}, {"tid", t.lane},
                      {"args", {{"task_id", k}, {"source", where(run, t.line)}}}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"},
          {"otherData", {{"kernel", run.kernel}, {"platform", run.platform}, {"level", run.swimlane_level}}}};
}

// One JSON object per line per scope (a region's name): how often it ran and how long.
std::string scope_stats(const DfxRun& run, const std::vector<sim::TaskRecord>& tasks) {
  struct Stats {
    int line = 0;
    int64_t count = 0, total = 0, min = INT64_MAX, max = 0;
  };
  std::map<std::string, Stats> by_name;
  std::vector<std::string> order;
  for (const auto& t : tasks) {
    auto [it, fresh] = by_name.try_emplace(*t.name);
    if (fresh) order.push_back(*t.name);
    Stats& s = it->second;
    const int64_t d = t.end_ns - t.start_ns;
    s.line = t.line;
    ++s.count;
    s.total += d;
    s.min = std::min(s.min, d);
    s.max = std::max(s.max, d);
  }
  std::string out;
  for (const auto& name : order) {
    const Stats& s = by_name[name];
    out += json({{"scope", name}, {"source", where(run, s.line)}, {"count", s.count}, {"total_us", us(s.total)},
                 {"mean_us", us(s.total) / static_cast<double>(s.count)}, {"min_us", us(s.min)}, {"max_us", us(s.max)}})
               .dump() +
           "\n";
  }
  return out;
}

}  // namespace

std::vector<std::filesystem::path> write_dfx_outputs(const std::filesystem::path& dir, const DfxRun& run,
                                                     const std::vector<sim::TaskRecord>& tasks) {
  std::vector<std::filesystem::path> written;
  if (run.swimlane_level > 0) {
    written.push_back(dir / "chip_swimlane_records.json");
    write_json(written.back(), records(run, tasks));
    written.push_back(dir / ("merged_swimlane_" + run.kernel + ".json"));
    write_json(written.back(), trace(run, tasks));
  }
  if (run.scope_stats) {
    written.push_back(dir / "scope_stats" / "scope_stats.jsonl");
    write_json(written.back(), scope_stats(run, tasks), true);
  }
  return written;
}

}  // namespace pypto_golden
