#include "report/json_stream.h"

#include "snapshot/atomic_file.h"

namespace pypto_golden {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

JsonObjectStream::JsonObjectStream(int fd, const std::filesystem::path& path) : fd_(fd), path_(path) {
  buffer_.reserve(kFlushBytes + 4096);
  buffer_ = "{";
}

void JsonObjectStream::key(const std::string& key) {
  buffer_ += first_field_ ? "\n " : ",\n ";
  first_field_ = false;
  buffer_ += nlohmann::json(key).dump();
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

void JsonObjectStream::element(const nlohmann::json& value) {
  buffer_ += first_element_ ? "\n  " : ",\n  ";
  first_element_ = false;
  buffer_ += value.dump();
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
