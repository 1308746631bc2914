// A JSON object written to a file as it is produced: its small fields, then arrays an element
// at a time, one element per line, through a fixed buffer. The DFX outputs of a large
// dispatch (a million tasks) would take gigabytes as one in-memory JSON document; streamed,
// they take the buffer.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>

namespace pypto_golden {

class JsonObjectStream {
 public:
  JsonObjectStream(int fd, const std::filesystem::path& path);
  JsonObjectStream(const JsonObjectStream&) = delete;
  JsonObjectStream& operator=(const JsonObjectStream&) = delete;

  // A field whose value is small enough to hold whole.
  void field(const std::string& key, const nlohmann::json& value);
  // A field whose value is an array, given an element at a time between begin and end.
  void begin_array(const std::string& key);
  void element(const nlohmann::json& value);
  void end_array();

 private:
  friend void write_json_stream(const std::filesystem::path&, const std::function<void(JsonObjectStream&)>&);
  void key(const std::string& key);
  void finish();
  void flush_if_full();

  int fd_;
  const std::filesystem::path& path_;
  std::string buffer_;
  bool first_field_ = true;
  bool first_element_ = true;
};

// Writes `path` whole or not at all (write_file_atomically): `{`, what `fill` streams, `}`.
void write_json_stream(const std::filesystem::path& path, const std::function<void(JsonObjectStream&)>& fill);

}  // namespace pypto_golden
