// Files that appear whole or not at all: written to a hidden temporary file in the same
// directory, then renamed over the target.
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace pypto_golden {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Calls write(fd) on a temporary file next to `path` and renames it over `path`; on any
// failure the temporary is removed and `path` is untouched. Creates missing parent
// directories. No fsync: the rename is atomic for everything that outlives this process
// (SIGKILL, Ctrl-C, a crash of ours); power-loss durability is not promised.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(int fd)>& write);

// write(2) until every byte is out; FileWriteError naming `path` otherwise.
void write_all(int fd, const void* data, size_t n, const std::filesystem::path& path);

}  // namespace pypto_golden
