// A JSON object written to a file as it is produced: its small fields, then arrays an element
// at a time, one element per line, through a fixed buffer. The DFX outputs of a large
// dispatch (a million tasks) would take gigabytes as one in-memory JSON document; streamed,
// they take the buffer.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace pypto_golden {

// One JSON object written straight as text, its fields in the order given: for the
// elements a stream writes by the million, where building each as a json value would cost
// more than all else (an allocation per field).
class JsonText {
 public:
  JsonText() : text_("{") {}
  JsonText& field(const char* key, int64_t value);
  JsonText& field(const char* key, int value) { return field(key, static_cast<int64_t>(value)); }
  JsonText& field(const char* key, size_t value) { return field(key, static_cast<int64_t>(value)); }
  JsonText& field(const char* key, double value);  // the shortest text that reads back the same
  JsonText& field(const char* key, const std::string& value);
  JsonText& field(const char* key, const char* value) { return field(key, std::string(value)); }
  JsonText& field(const char* key, const std::vector<int64_t>& values);
  // A field whose value is JSON text already (another JsonText's, an array of them).
  JsonText& raw(const char* key, const std::string& json);
  // The object's text, closed.
  const std::string& text();

 private:
  void key(const char* key);
  std::string text_;
  bool closed_ = false;
};

// `value` as a JSON string literal.
std::string json_quoted(const std::string& value);

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
  void element(JsonText& value);
  void end_array();

 private:
  friend void write_json_stream(const std::filesystem::path&, const std::function<void(JsonObjectStream&)>&);
  void key(const std::string& key);
  void element_text(const std::string& text);
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
