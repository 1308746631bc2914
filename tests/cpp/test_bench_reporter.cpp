#include "bench/bench_context.h"
#include "bench/bench_reporter.h"
#include "bench/bench_stats.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace pypto_golden;

TEST_CASE("a benchmark result declares its fields once, in order") {
  std::vector<std::string> names;
#define NAME_OF(name, type, init, doc) names.push_back(#name);
  PYPTO_BENCH_STATS_FIELDS(NAME_OF)
#undef NAME_OF
  CHECK(names == std::vector<std::string>{"metric", "rounds", "warmup", "samples", "min", "median", "mean", "max",
                                          "stdev", "level", "devices", "rank_samples"});
  const BenchStats fresh;
  CHECK(fresh.metric == "host_us");
  CHECK((fresh.rounds == 0 && fresh.warmup == 0 && fresh.samples.empty() && fresh.stdev == 0.0));
}

TEST_CASE("the console reporter prints the effective_us line, the statistics and, asked, the raw samples") {
  const BenchStats s = summarize({4.0, 1.0, 3.0, 2.0}, 4, 1, "host_us");
  std::vector<std::string> lines;
  auto sink = [&](const std::string& line) { lines.push_back(line); };
  report_to_console(s, false, {"k", "a2a3sim"}, sink);
  CHECK(lines == std::vector<std::string>{"[RUN]   effective_us unavailable: sim platform has no device timing",
                                          "[RUN]   host_us (4 rounds) min=1.0 median=2.5 mean=2.5 max=4.0 stdev=1.3"});
  lines.clear();
  report_to_console(s, true, {"k", "a2a3sim"}, sink);
  REQUIRE(lines.size() == 4);
  CHECK(lines[2] == "[RUN]   raw samples: rounds=4 warmup=1");
  CHECK(lines[3] == "[RUN]     raw n=4 host_us=[4.0, 1.0, 3.0, 2.0]");
}

TEST_CASE("an L3 console report adds the ranks, their raw samples and the detail line") {
  BenchStats s = summarize({10.0, 30.0}, 2, 1, "host_us");
  s.level = "l3_resident";
  s.devices = {3, 5};
  s.rank_samples = {{4.0, 6.0}, {1.0, 3.0}};
  std::vector<std::string> lines;
  report_to_console(s, true, {"kv", "a2a3sim"}, [&](const std::string& line) { lines.push_back(line); });
  CHECK(lines == std::vector<std::string>{
                     "[RUN]   effective_us unavailable: sim platform has no device timing",
                     "[RUN]   host_us (2 rounds) min=10.0 median=20.0 mean=20.0 max=30.0 stdev=14.1",
                     "[RUN]     rank 0 (device 3): host_us min=4.0 median=5.0 mean=5.0 max=6.0",
                     "[RUN]     rank 1 (device 5): host_us min=1.0 median=2.0 mean=2.0 max=3.0",
                     "[RUN]   raw samples: ranks=2 rounds=2 warmup=1",
                     "[RUN]     raw n=2 host_us=[10.0, 30.0]",
                     "[RUN]     rank 0 raw n=2 host_us=[4.0, 6.0]",
                     "[RUN]     rank 1 raw n=2 host_us=[1.0, 3.0]",
                     "[RUN] benchmark kernel=kv l3_resident=1 rounds=2 ranks=2 host_mean_us=20",
                 });
  const nlohmann::json doc = nlohmann::json::parse(json_report(s, {"kv", "a2a3sim"}, current_bench_context(1)));
  CHECK(doc["level"] == "l3_resident");
  REQUIRE(doc["ranks"].size() == 2);
  CHECK(doc["ranks"][1]["device"] == 5);
  CHECK(doc["ranks"][1]["host_us"]["samples"] == std::vector<double>{1.0, 3.0});
  CHECK(doc["ranks"][1]["host_us"]["median"] == 2.0);
}

TEST_CASE("the JSON report keeps its result fields at the top and adds a context block") {
  const BenchStats s = summarize({4.0, 1.0, 3.0, 2.0}, 4, 1, "host_us");
  const nlohmann::json doc = nlohmann::json::parse(json_report(s, {"hello_world", "a2a3sim"}, current_bench_context(3)));
  std::set<std::string> keys;
  for (const auto& item : doc.items()) keys.insert(item.key());
  CHECK(keys == std::set<std::string>{"context", "effective_us", "host_us", "kernel", "level", "platform", "rounds",
                                      "warmup"});
  CHECK(doc["level"] == "l2");
  CHECK(doc["kernel"] == "hello_world");
  CHECK(doc["platform"] == "a2a3sim");
  CHECK((doc["rounds"] == 4 && doc["warmup"] == 1 && doc["effective_us"].is_null()));
  CHECK(doc["host_us"]["median"] == 2.5);
  CHECK(doc["host_us"]["samples"] == std::vector<double>{4.0, 1.0, 3.0, 2.0});

  const nlohmann::json& c = doc["context"];
  std::set<std::string> context_keys;
  for (const auto& item : c.items()) context_keys.insert(item.key());
  CHECK(context_keys == std::set<std::string>{"build_type", "date", "host_name", "num_cpus", "pypto_golden_version",
                                              "sim_threads", "torch_version"});
  for (const char* text : {"build_type", "date", "host_name", "pypto_golden_version", "torch_version"})
    CHECK_MESSAGE(c[text].is_string(), text);
  CHECK(c["num_cpus"].is_number_integer());
  CHECK(c["num_cpus"].get<int>() >= 1);
  CHECK(c["sim_threads"] == 3);
  CHECK(std::regex_match(c["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  CHECK_FALSE(c["pypto_golden_version"].get<std::string>().empty());
  CHECK_FALSE(c["torch_version"].get<std::string>().empty());
  CHECK_FALSE(c["build_type"].get<std::string>().empty());  // this build's CMAKE_BUILD_TYPE
}
