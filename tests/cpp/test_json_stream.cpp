// The streamed JSON object of the DFX outputs: what it writes parses back to the document
// it stands for, also across buffer flushes, and one array element per line.
#include "report/json_stream.h"

#include <doctest/doctest.h>

#include <cmath>
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

TEST_CASE("an object written as text is exact JSON, fields in the order given") {
  using pypto_golden::JsonText;
  JsonText inner;
  inner.field("bytes in use", int64_t{4096});
  JsonText t;
  t.field("n", 3)
      .field("big", int64_t{1} << 40)
      .field("count", size_t{7})
      .field("x", 1.5)
      .field("whole", 2.0)
      .field("tiny", 1e-7)
      .field("nan", std::nan(""))
      .field("name", std::string("a \"q\" \\ b\n\t\x01"))
      .field("ph", "X")
      .field("shape", std::vector<int64_t>{16, -1})
      .field("none", std::vector<int64_t>{})
      .raw("args", inner.text());
  const std::string text = t.text();
  CHECK(text ==
        "{\"n\":3,\"big\":1099511627776,\"count\":7,\"x\":1.5,\"whole\":2,\"tiny\":1e-07,\"nan\":null,"
        "\"name\":\"a \\\"q\\\" \\\\ b\\n\\t\\u0001\",\"ph\":\"X\",\"shape\":[16,-1],\"none\":[],"
        "\"args\":{\"bytes in use\":4096}}");
  const json doc = json::parse(text);
  CHECK(doc["name"] == "a \"q\" \\ b\n\t\x01");
  CHECK(doc["x"] == 1.5);
  CHECK(t.text() == text);  // closed once
  CHECK(JsonText().text() == "{}");
}
