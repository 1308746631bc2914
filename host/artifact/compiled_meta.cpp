#include "artifact/compiled_meta.h"

#include "artifact/sidecar_file.h"
#include "tensor/dtype_names.h"

#include <nlohmann/json.hpp>

#include <unordered_set>

namespace pypto_golden {
namespace {

using nlohmann::json;

constexpr const char* kRebuildHint = "; recompile the kernel to refresh the build";

[[noreturn]] void fail(const std::filesystem::path& origin, const std::string& what) {
  throw ArtifactError(origin.string() + ": " + what + kRebuildHint);
}

// 'text', or its first 60 characters and its length: a hostile file's megabyte string is
// named, not echoed.
std::string quoted_text(const std::string& text) {
  if (text.size() <= 64) return "'" + text + "'";
  return "'" + text.substr(0, 60) + "...' (" + std::to_string(text.size()) + " characters)";
}

std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return std::string("boolean ") + (v.get<bool>() ? "true" : "false");
    case json::value_t::string: return "string " + quoted_text(v.get_ref<const std::string&>());
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "number " + v.dump();
    default: return "integer " + v.dump();
  }
}

// "params[1].dtype", or "platform" at the top level (where == "").
std::string field(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

const json& require(const json& obj, const char* key, const std::string& where,
                    const std::filesystem::path& origin) {
  auto it = obj.find(key);
  if (it == obj.end())
    fail(origin, (where.empty() ? std::string("the field '") : where + " has no field '") + key + "'" +
                     (where.empty() ? " is missing" : ""));
  return *it;
}

std::string require_string(const json& obj, const char* key, const std::string& where,
                           const std::filesystem::path& origin) {
  const json& v = require(obj, key, where, origin);
  if (!v.is_string())
    fail(origin, field(where, key) + " must be a string, got " + describe(v));
  return v.get<std::string>();
}

int64_t require_int(const json& obj, const char* key, const std::string& where,
                    const std::filesystem::path& origin) {
  const json& v = require(obj, key, where, origin);
  if (!v.is_number_integer())
    fail(origin, field(where, key) + " must be an integer, got " + describe(v));
  return v.get<int64_t>();
}

ParamMeta parse_param(const json& p, size_t index, const std::filesystem::path& origin) {
  std::string where = "params[" + std::to_string(index) + "]";
  if (!p.is_object()) fail(origin, where + " must be an object, got " + describe(p));
  ParamMeta m;
  std::string raw_name = require_string(p, "name", where, origin);
  if (raw_name.empty()) fail(origin, where + ".name must not be empty");
  m.name = strip_ssa_suffix(raw_name);

  std::string dir = require_string(p, "direction", where, origin);
  if (dir == "In") m.direction = Direction::In;
  else if (dir == "Out") m.direction = Direction::Out;
  else if (dir == "InOut") m.direction = Direction::InOut;
  else fail(origin, where + ".direction must be one of In, Out, InOut, got " + quoted_text(dir));

  m.dtype = require_string(p, "dtype", where, origin);
  if (!scalar_type_from_pypto(m.dtype))
    fail(origin, where + ".dtype " + quoted_text(m.dtype) + " is not a PyPTO dtype");

  const json& shape = require(p, "shape", where, origin);
  if (shape.is_null()) {
    m.is_scalar = true;
  } else if (shape.is_array()) {
    for (size_t d = 0; d < shape.size(); ++d) {
      const json& extent = shape[d];
      if (!extent.is_number_integer() || extent.get<int64_t>() < -1)
        fail(origin, where + ".shape[" + std::to_string(d) +
                         "] must be an integer >= -1, got " + describe(extent));
      m.shape.push_back(extent.get<int64_t>());
    }
  } else {
    fail(origin, where + ".shape must be a list of integers or null, got " + describe(shape));
  }
  return m;
}

}  // namespace

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::In: return "In";
    case Direction::Out: return "Out";
    case Direction::InOut: return "InOut";
  }
  return "?";
}

std::string strip_ssa_suffix(const std::string& name) {
  // By hand, not std::regex: libstdc++'s matcher recurses per character, and a hostile
  // name of a few hundred KiB would overflow the stack.
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  static const std::string marker = "__ssa_v";
  if (digits == name.size() || digits < marker.size() || name.compare(digits - marker.size(), marker.size(), marker))
    return name;
  return name.substr(0, digits - marker.size());
}

CompiledMeta parse_compiled_meta(const std::string& text, const std::filesystem::path& origin) {
  json doc;
  try {
    doc = parse_sidecar_json(text);
  } catch (const SidecarFileError& e) {
    fail(origin, e.what());
  }
  if (!doc.is_object()) fail(origin, "must hold a JSON object, got " + describe(doc));

  CompiledMeta meta;
  meta.path = origin;
  int64_t schema = require_int(doc, "schema", "", origin);
  if (schema != 1)
    fail(origin, "unsupported schema " + std::to_string(schema) + " (expected 1)");
  meta.schema = 1;

  const json& params = require(doc, "params", "", origin);
  if (!params.is_array()) fail(origin, "params must be a list, got " + describe(params));
  std::unordered_set<std::string> seen;  // a set: a hostile file's million params stay linear
  for (size_t i = 0; i < params.size(); ++i) {
    meta.params.push_back(parse_param(params[i], i, origin));
    if (!seen.insert(meta.params.back().name).second)
      fail(origin, "params[" + std::to_string(i) + "] repeats the parameter name '" + meta.params.back().name + "'");
  }

  meta.num_return_types = require_int(doc, "num_return_types", "", origin);
  if (meta.num_return_types < 0)
    fail(origin, "num_return_types must be >= 0, got " + std::to_string(meta.num_return_types));
  meta.platform = require_string(doc, "platform", "", origin);
  meta.backend_type = require_string(doc, "backend_type", "", origin);
  return meta;
}

CompiledMeta read_compiled_meta(const std::filesystem::path& build_dir) {
  auto path = build_dir / "compiled_meta.json";
  std::optional<std::string> text;
  try {
    text = read_sidecar_text(path);
  } catch (const SidecarFileError& e) {
    throw ArtifactError(e.what() + std::string(kRebuildHint));
  }
  if (!text)
    throw ArtifactError(path.string() + " not found: the directory is not a PyPTO build (no compiled_meta.json)" +
                        kRebuildHint);
  return parse_compiled_meta(*text, path);
}

}  // namespace pypto_golden
