// Reader for PyPTO's compiled_meta.json (schema 1): the parameter directions of a build.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace pypto_golden {

enum class Direction { In, Out, InOut };
const char* direction_name(Direction d);

struct ParamMeta {
  std::string name;  // SSA suffix (__ssa_vN) stripped
  Direction direction = Direction::In;
  bool is_scalar = false;       // "shape": null
  std::vector<int64_t> shape;   // -1 = dynamic
  std::string dtype;            // PyPTO dtype name
};

struct CompiledMeta {
  std::filesystem::path path;
  int schema = 1;
  std::vector<ParamMeta> params;
  int64_t num_return_types = 0;
  std::string platform;
  std::string backend_type;
};

// A build directory that cannot be used; the message says what is wrong and how to fix it.
class ArtifactError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and strictly validates <build_dir>/compiled_meta.json.
CompiledMeta read_compiled_meta(const std::filesystem::path& build_dir);

// Same, from text already in memory; `origin` names the file in messages.
CompiledMeta parse_compiled_meta(const std::string& text, const std::filesystem::path& origin);

// "q__ssa_v3" -> "q"; other names unchanged.
std::string strip_ssa_suffix(const std::string& name);

}  // namespace pypto_golden
