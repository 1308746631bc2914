// Which variables a pl.at region hands on (sim/region_outputs.h): those it defines that are
// live when it ends, which the task graph records as the region's outputs.
#include "sim/region_outputs.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

using nlohmann::json;
using pypto_golden::sim::region_outputs;

namespace {

// A function with slots x (0), y (1), then t0.. (2..), whose body is `body`; the outputs of
// its regions, by the region's line.
std::map<int, std::vector<int>> outputs(const std::string& body) {
  json fn = json::parse(R"({"name": "k", "params": [{"name": "x", "kind": "tensor"}, {"name": "y", "kind": "tensor"}],
                             "slots": ["x", "y", "t0", "t1", "t2", "i"]})");
  fn["body"] = json::parse(body);
  std::map<int, std::vector<int>> by_line;
  for (const auto& [at, slots] : region_outputs(fn)) by_line[at->at("line").get<int>()] = slots;
  return by_line;
}

std::string var(int slot) { return R"({"e": "var", "slot": )" + std::to_string(slot) + "}"; }
std::string assign(int line, int slot, const std::string& value) {
  return R"({"s": "assign", "line": )" + std::to_string(line) + R"(, "slot": )" + std::to_string(slot) +
         R"(, "value": )" + value + "}";
}
std::string at(int line, const std::string& body) {
  return R"({"s": "at", "line": )" + std::to_string(line) + R"(, "name": null, "body": [)" + body + "]}";
}
std::string write(int line, int target, const std::string& value) {
  return R"({"s": "write", "line": )" + std::to_string(line) + R"(, "target": )" + std::to_string(target) +
         R"(, "index": [], "text": "t", "value": )" + value + "}";
}
std::string loop(int line, const std::string& body, const std::string& kind = "range") {
  return R"({"s": "for", "line": )" + std::to_string(line) + R"(, "kind": ")" + kind + R"(", "var": 5, "start": )" + var(0) +
         R"(, "stop": )" + var(0) + R"(, "step": )" + var(0) + R"(, "body": [)" + body + "]}";
}

}  // namespace

TEST_CASE("a region's outputs are the variables it defines that a later statement reads") {
  // t0 and t1 made in the first region; only t0 is read after it (by the second region).
  CHECK(outputs("[" + at(1, assign(2, 2, var(0)) + "," + assign(3, 3, var(2))) + "," +
                at(4, write(5, 1, var(2))) + "]") == std::map<int, std::vector<int>>{{1, {2}}});
  // Read only after being defined again: not an output.
  CHECK(outputs("[" + at(1, assign(2, 2, var(0))) + "," + assign(3, 2, var(1)) + "," + write(4, 1, var(2)) + "]")
            .empty());
  // Written into later (t0[...] = ...) reads the variable that holds the tile.
  CHECK(outputs("[" + at(1, assign(2, 2, var(0))) + "," + write(3, 2, var(1)) + "]") ==
        std::map<int, std::vector<int>>{{1, {2}}});
  // Read on one branch of a later if.
  CHECK(outputs("[" + at(1, assign(2, 2, var(0))) +
                R"(, {"s": "if", "line": 3, "cond": )" + var(0) + R"(, "then": [], "else": [)" + write(4, 1, var(2)) +
                "]}]") == std::map<int, std::vector<int>>{{1, {2}}});
  // After a return nothing is read.
  CHECK(outputs("[" + at(1, assign(2, 2, var(0))) + R"(, {"s": "return", "line": 3, "values": []}, )" +
                write(4, 1, var(2)) + "]")
            .empty());
}

TEST_CASE("a region in a loop hands on what the next iteration reads before defining it") {
  // Loop-carried: t0 is read at the top of the body, then made again by the region.
  CHECK(outputs("[" + loop(1, write(2, 1, var(2)) + "," + at(3, assign(4, 2, var(0)))) + "]") ==
        std::map<int, std::vector<int>>{{3, {2}}});
  // Made and read inside each iteration's region only: nothing is handed on.
  CHECK(outputs("[" + loop(1, at(3, assign(4, 2, var(0)) + "," + write(5, 1, var(2)))) + "]").empty());
  // A nested region's tile read by the rest of the region around it, not after it.
  CHECK(outputs("[" + at(1, at(2, assign(3, 3, var(0))) + "," + write(4, 1, var(3))) + "]") ==
        std::map<int, std::vector<int>>{{2, {3}}});
  // A parallel loop's iterations each run on their own copy of the variables: nothing one
  // binds reaches another, nor the statements after the loop.
  for (const char* kind : {"parallel", "spmd"}) {
    CHECK(outputs("[" + loop(1, write(2, 1, var(2)) + "," + at(3, assign(4, 2, var(0))), kind) + "," +
                  write(5, 1, var(2)) + "]")
              .empty());
    CHECK(outputs("[" + loop(1, at(2, assign(3, 2, var(0))) + "," + write(4, 1, var(2)), kind) + "]") ==
          std::map<int, std::vector<int>>{{2, {2}}});
  }
  // The loop variable is defined by the loop, not by a region in its body.
  CHECK(outputs("[" + loop(1, at(2, assign(3, 2, var(5)))) + "," + write(4, 1, var(5)) + "]").empty());
}

TEST_CASE("deeply nested loops are walked a few times, not once per path through them") {
  // 64 loops, one in another, around a region whose tile the outermost body reads first:
  // solving each loop inside its parent's iterations would walk the innermost body 2^64
  // times.
  std::string body = at(100, assign(101, 2, var(0)));
  for (int k = 0; k < 64; ++k) body = loop(1, body);
  CHECK(outputs("[" + loop(1, write(2, 1, var(2)) + "," + body) + "]") == std::map<int, std::vector<int>>{{100, {2}}});
}
