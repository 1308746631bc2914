#include "report/json_stream.h"

#include "snapshot/atomic_file.h"

#include <charconv>
#include <cmath>

namespace pypto_golden {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

void append_int(std::string& text, int64_t value) {
  char buf[24];
  text.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
}

}  // namespace

std::string json_quoted(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out += hex[(c >> 4) & 0xf];
          out += hex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonText::key(const char* key) {
  if (text_.size() > 1) text_ += ',';
  text_ += '"';
  text_ += key;  // keys are this program's own literals: nothing to escape
  text_ += "\":";
}

JsonText& JsonText::field(const char* key, int64_t value) {
  this->key(key);
  append_int(text_, value);
  return *this;
}

JsonText& JsonText::field(const char* key, double value) {
  this->key(key);
  if (!std::isfinite(value)) {  // JSON has no text for these; nlohmann writes null too
    text_ += "null";
    return *this;
  }
  char buf[32];
  text_.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
  return *this;
}

JsonText& JsonText::field(const char* key, const std::string& value) {
  this->key(key);
  text_ += json_quoted(value);
  return *this;
}

JsonText& JsonText::field(const char* key, const std::vector<int64_t>& values) {
  this->key(key);
  text_ += '[';
  for (size_t k = 0; k < values.size(); ++k) {
    if (k) text_ += ',';
    append_int(text_, values[k]);
  }
  text_ += ']';
  return *this;
}

JsonText& JsonText::raw(const char* key, const std::string& json) {
  this->key(key);
  text_ += json;
  return *this;
}

const std::string& JsonText::text() {
  if (!closed_) text_ += '}';
  closed_ = true;
  return text_;
}

JsonObjectStream::JsonObjectStream(int fd, const std::filesystem::path& path) : fd_(fd), path_(path) {
  buffer_.reserve(kFlushBytes + 4096);
  buffer_ = "{";
}

void JsonObjectStream::key(const std::string& key) {
  buffer_ += first_field_ ? "\n " : ",\n ";
  first_field_ = false;
  buffer_ += json_quoted(key);
  buffer_ += ": ";
}

void JsonObjectStream::field(const std::string& key, const nlohmann::json& value) {
  this->key(key);
  buffer_ += value.dump();
  flush_if_full();
}

void JsonObjectStream::begin_array(const std::string& key) {
  this->key(key);
  buffer_ += "[";
  first_element_ = true;
}

void JsonObjectStream::element(const nlohmann::json& value) { element_text(value.dump()); }

void JsonObjectStream::element(JsonText& value) { element_text(value.text()); }

void JsonObjectStream::element_text(const std::string& text) {
  buffer_ += first_element_ ? "\n  " : ",\n  ";
  first_element_ = false;
  buffer_ += text;
  flush_if_full();
}

void JsonObjectStream::end_array() { buffer_ += first_element_ ? "]" : "\n ]"; }

void JsonObjectStream::flush_if_full() {
  if (buffer_.size() < kFlushBytes) return;
  write_all(fd_, buffer_.data(), buffer_.size(), path_);
  buffer_.clear();
}

void JsonObjectStream::finish() {
  buffer_ += "\n}\n";
  write_all(fd_, buffer_.data(), buffer_.size(), path_);
  buffer_.clear();
}

void write_json_stream(const std::filesystem::path& path, const std::function<void(JsonObjectStream&)>& fill) {
  write_file_atomically(path, [&](int fd) {
    JsonObjectStream out(fd, path);
    fill(out);
    out.finish();
  });
}

}  // namespace pypto_golden
