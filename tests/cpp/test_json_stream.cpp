// The streamed JSON object of the DFX outputs: what it writes parses back to the document
// it stands for, also across buffer flushes, and one array element per line.
#include "report/json_stream.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using nlohmann::json;
using pypto_golden::JsonObjectStream;
using pypto_golden::write_json_stream;

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("pypto_golden_json_stream_" + std::to_string(getpid())) / name;
}

}  // namespace

TEST_CASE("a streamed object is the document it stands for, an array element per line") {
  const auto path = temp_path("small.json");
  write_json_stream(path, [](JsonObjectStream& out) {
    out.field("format", "x");
    out.field("nested", {{"a", {1, 2}}});
    out.begin_array("empty");
    out.end_array();
    out.begin_array("items");
    out.element({{"k", 1}});
    out.element("two");
    out.end_array();
  });
  CHECK(read_text(path) ==
        "{\n \"format\": \"x\",\n \"nested\": {\"a\":[1,2]},\n \"empty\": [],\n \"items\": [\n  {\"k\":1},\n"
        "  \"two\"\n ]\n}\n");
  CHECK(json::parse(read_text(path)) ==
        json({{"format", "x"}, {"nested", {{"a", {1, 2}}}}, {"empty", json::array()}, {"items", {{{"k", 1}}, "two"}}}));
  std::filesystem::remove_all(path.parent_path());
}

TEST_CASE("a streamed array larger than the buffer is written whole") {
  const auto path = temp_path("large.json");
  const int n = 200000;  // ~3 MiB: several flushes
  write_json_stream(path, [&](JsonObjectStream& out) {
    out.begin_array("tasks");
    for (int k = 0; k < n; ++k) out.element({{"task_id", k}, {"name", "task"}});
    out.end_array();
    out.field("after", true);
  });
  const json doc = json::parse(read_text(path));
  REQUIRE(doc["tasks"].size() == static_cast<size_t>(n));
  for (int k = 0; k < n; k += 9973) CHECK(doc["tasks"][static_cast<size_t>(k)]["task_id"] == k);
  CHECK(doc["tasks"].back()["task_id"] == n - 1);
  CHECK(doc["after"] == true);
  std::filesystem::remove_all(path.parent_path());
}

TEST_CASE("a failure while streaming leaves no file") {
  const auto path = temp_path("failed.json");
  CHECK_THROWS_WITH(write_json_stream(path,
                                      [](JsonObjectStream& out) {
                                        out.field("a", 1);
                                        throw std::runtime_error("stopped");
                                      }),
                    "stopped");
  CHECK_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(path.parent_path());
}
