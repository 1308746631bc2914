#include "ranks/recorded_tasks.h"

#include "ranks/gloo_group.h"
#include "sim/task_recorder.h"

#include <nlohmann/json.hpp>

#include <map>

namespace pypto_golden::ranks {

using nlohmann::json;

std::string recorded_tasks_text(const sim::TaskRecorder& recorder) {
  // Names once each: a dispatch runs few regions many times.
  std::map<std::string, int> index;
  json names = json::array();
  auto name = [&](const std::string* s) {
    if (s == nullptr) return -1;
    auto [it, added] = index.emplace(*s, static_cast<int>(names.size()));
    if (added) names.push_back(*s);
    return it->second;
  };
  json tasks = json::array();
  for (const sim::TaskRecord& t : recorder.tasks())
    tasks.push_back({name(t.name), name(t.program), t.line, t.device, t.lane, t.start_ns, t.end_ns, t.start_bytes,
                     t.end_bytes, t.depth, t.rank, t.launch});
  return json{{"origin", recorder.origin_unix_ns()}, {"names", names}, {"tasks", tasks}}.dump();
}

void add_recorded_tasks(sim::TaskRecorder& into, const std::string& text, int rank) {
  std::vector<sim::TaskRecorder::ForeignTask> tasks;
  try {
    const json doc = json::parse(text);
    const auto names = doc.at("names").get<std::vector<std::string>>();
    auto name = [&](const json& i) { return i.get<int>() < 0 ? std::string() : names.at(i.get<size_t>()); };
    // Both clocks count from their recorder's making; the system clock says how far apart.
    const int64_t shift = doc.at("origin").get<int64_t>() - into.origin_unix_ns();
    for (const json& t : doc.at("tasks")) {
      sim::TaskRecorder::ForeignTask task;
      task.name = name(t.at(0));
      task.program = name(t.at(1));
      sim::TaskRecord& r = task.record;
      r.line = t.at(2).get<int>();
      r.device = t.at(3).get<int>();
      r.lane = t.at(4).get<int>();
      r.start_ns = t.at(5).get<int64_t>() + shift;
      r.end_ns = t.at(6).get<int64_t>() + shift;
      r.start_bytes = t.at(7).get<int64_t>();
      r.end_bytes = t.at(8).get<int64_t>();
      r.depth = t.at(9).get<int>();
      r.rank = t.at(10).get<int>();
      r.launch = t.at(11).get<int>();
      tasks.push_back(std::move(task));
    }
  } catch (const std::exception& e) {  // json's, or a name index past the table
    throw GroupError("rank " + std::to_string(rank) + " sent back task records that are not: " + e.what());
  }
  into.add_foreign(std::move(tasks));
}

}  // namespace pypto_golden::ranks
