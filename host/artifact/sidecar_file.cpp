#include "artifact/sidecar_file.h"

#include "tensor/bytes_text.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pypto_golden {

std::optional<std::string> read_sidecar_text(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return std::nullopt;
  if (ec) throw SidecarFileError("cannot read " + path.string() + ": " + ec.message());
  if (status.type() == fs::file_type::directory)
    throw SidecarFileError(path.string() + " is a directory, not a file");
  if (status.type() != fs::file_type::regular)
    throw SidecarFileError(path.string() + " is not a regular file (a FIFO, socket or device)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw SidecarFileError(path.string() + " is " + bytes_text(size) + ", larger than any build writes (at most " +
                           bytes_text(max_bytes) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SidecarFileError("cannot read " + path.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SidecarFileError("cannot read " + path.string() + ": " + std::strerror(errno));
  return std::move(text).str();
}

nlohmann::json parse_sidecar_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw SidecarFileError("not valid JSON (syntax error at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception& e) {
    throw SidecarFileError("not valid JSON (" + json_error_text(e) + ")");
  }
}

std::string json_error_text(const std::exception& e) {
  std::string why = e.what();
  if (auto tag = why.find("] "); !why.empty() && why[0] == '[' && tag != std::string::npos) why.erase(0, tag + 2);
  return why;
}

}  // namespace pypto_golden
