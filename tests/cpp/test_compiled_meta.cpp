#include "artifact/compiled_meta.h"
#include "artifact/sidecar_file.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace pypto_golden;

namespace {
const char* kGood = R"({"schema": 1, "params": [
  {"name": "x", "direction": "In", "shape": [4, 8], "dtype": "fp32"},
  {"name": "a", "direction": "In", "shape": null, "dtype": "fp32"},
  {"name": "y__ssa_v2", "direction": "Out", "shape": [4, -1], "dtype": "bfloat16"}],
  "num_return_types": 1, "platform": "a2a3sim", "backend_type": "Ascend910B"})";

std::string error_of(const std::string& text) {
  try {
    parse_compiled_meta(text, "b/compiled_meta.json");
  } catch (const ArtifactError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a schema-1 sidecar is read with directions and stripped SSA names") {
  CompiledMeta m = parse_compiled_meta(kGood, "b/compiled_meta.json");
  REQUIRE(m.params.size() == 3);
  CHECK(m.params[0].direction == Direction::In);
  CHECK(m.params[0].shape == std::vector<int64_t>{4, 8});
  CHECK(m.params[1].is_scalar);
  CHECK(m.params[2].name == "y");
  CHECK(m.params[2].direction == Direction::Out);
  CHECK(m.params[2].shape == std::vector<int64_t>{4, -1});
  CHECK(m.num_return_types == 1);
  CHECK(m.platform == "a2a3sim");
}

TEST_CASE("malformed sidecars name the file, the field and what was found") {
  const std::string hint = "; recompile the kernel to refresh the build";
  CHECK(error_of("{not json") == "b/compiled_meta.json: not valid JSON (syntax error at byte 3)" + hint);
  CHECK(error_of("[1]") == "b/compiled_meta.json: must hold a JSON object, got an array" + hint);
  CHECK(error_of(R"({"schema": 2})") == "b/compiled_meta.json: unsupported schema 2 (expected 1)" + hint);
  CHECK(error_of(R"({"params": []})") == "b/compiled_meta.json: the field 'schema' is missing" + hint);
  CHECK(error_of(R"({"schema": 1, "params": [{"name": "x", "direction": "Sideways", "shape": [1], "dtype": "fp32"}]})") ==
        "b/compiled_meta.json: params[0].direction must be one of In, Out, InOut, got 'Sideways'" + hint);
  CHECK(error_of(R"({"schema": 1, "params": [{"name": "x", "direction": "In", "shape": [1], "dtype": "fp64"}]})") ==
        "b/compiled_meta.json: params[0].dtype 'fp64' is not a PyPTO dtype" + hint);
  CHECK(error_of(R"({"schema": 1, "params": [{"name": "x", "direction": "In", "shape": ["a"], "dtype": "fp32"}]})") ==
        "b/compiled_meta.json: params[0].shape[0] must be an integer >= -1, got string 'a'" + hint);
  CHECK(error_of(R"({"schema": 1, "params": [{"name": "x", "direction": "In", "shape": 3, "dtype": "fp32"}]})") ==
        "b/compiled_meta.json: params[0].shape must be a list of integers or null, got integer 3" + hint);
  CHECK(error_of(R"({"schema": 1, "params": {}, "num_return_types": 0})") ==
        "b/compiled_meta.json: params must be a list, got an object" + hint);
  CHECK(error_of(R"({"schema": 1, "params": [], "num_return_types": -1, "platform": "a2a3sim", "backend_type": "x"})") ==
        "b/compiled_meta.json: num_return_types must be >= 0, got -1" + hint);
  CHECK(error_of(R"({"schema": 1, "params": [], "num_return_types": 0, "platform": 3, "backend_type": "x"})") ==
        "b/compiled_meta.json: platform must be a string, got integer 3" + hint);
}

TEST_CASE("a directory without the sidecar is not a build") {
  auto dir = std::filesystem::temp_directory_path() / "pypto_golden_meta_test_empty";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / "compiled_meta.json");
  CHECK_THROWS_WITH_AS(read_compiled_meta(dir),
                       ((dir / "compiled_meta.json").string() +
                        " not found: the directory is not a PyPTO build (no compiled_meta.json); recompile the kernel to refresh the build")
                           .c_str(),
                       ArtifactError);
  std::ofstream(dir / "compiled_meta.json") << kGood;
  CHECK(read_compiled_meta(dir).params.size() == 3);
  std::filesystem::remove_all(dir);
}

TEST_CASE("SSA suffixes are stripped only where they end the name") {
  CHECK(strip_ssa_suffix("q__ssa_v3") == "q");
  CHECK(strip_ssa_suffix("q__ssa_v12") == "q");
  CHECK(strip_ssa_suffix("__ssa_v0") == "");
  CHECK(strip_ssa_suffix("q__ssa_v") == "q__ssa_v");
  CHECK(strip_ssa_suffix("q__ssa_v3a") == "q__ssa_v3a");
  CHECK(strip_ssa_suffix("q_ssa_v3") == "q_ssa_v3");
  CHECK(strip_ssa_suffix("x3") == "x3");
  // Linear, whatever the length (std::regex recursed per character and overflowed).
  CHECK(strip_ssa_suffix(std::string(1 << 20, 'a') + "__ssa_v7") == std::string(1 << 20, 'a'));
}

TEST_CASE("a sidecar that cannot be one is refused before it is read") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / "pypto_golden_meta_test_hostile";
  fs::remove_all(dir);
  fs::create_directories(dir / "compiled_meta.json");
  const std::string path = (dir / "compiled_meta.json").string();
  const std::string hint = "; recompile the kernel to refresh the build";
  CHECK_THROWS_WITH_AS(read_compiled_meta(dir), (path + " is a directory, not a file" + hint).c_str(), ArtifactError);
  fs::remove(dir / "compiled_meta.json");
  std::ofstream(dir / "compiled_meta.json") << kGood;
  CHECK_THROWS_WITH_AS(read_sidecar_text(dir / "compiled_meta.json", 100),
                       (path + " is " + std::to_string(std::string(kGood).size()) + " B, larger than any build writes (at most 100 B)").c_str(),
                       SidecarFileError);
  CHECK(read_sidecar_text(dir / "compiled_meta.json")->size() == std::string(kGood).size());
  CHECK_FALSE(read_sidecar_text(dir / "missing.json").has_value());
  fs::remove_all(dir);
}
