// Reading a build's JSON sidecar (compiled_meta.json, sim_program.json) whole into memory,
// refusing what no build writes before reading it: a directory, a FIFO or device in its
// place (which would block or never end), a file larger than any sidecar is.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace pypto_golden {

// The sidecar exists but cannot be one; the message names the path and what it is instead.
class SidecarFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest sidecar read: the biggest sim_program.json of the model kernels is a few MiB.
constexpr std::uintmax_t kMaxSidecarBytes = 256ull << 20;

// The file's text, or nullopt when nothing is at `path` (the caller says what that means).
std::optional<std::string> read_sidecar_text(const std::filesystem::path& path,
                                             std::uintmax_t max_bytes = kMaxSidecarBytes);

// The JSON document in `text`. Throws SidecarFileError "not valid JSON (syntax error at byte
// 41)" or "not valid JSON (number overflow parsing '1e400')": every error of the parser,
// without nlohmann's "[json.exception...]" tag, so none escapes as another exception type.
nlohmann::json parse_sidecar_json(const std::string& text);

// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const std::exception& e);

}  // namespace pypto_golden
