#include "snapshot/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace pypto_golden {

void write_all(int fd, const void* data, size_t n, const std::filesystem::path& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw FileWriteError("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(int fd)>& write) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw FileWriteError("cannot create " + path.parent_path().string() + ": " + ec.message());
  std::random_device rd;
  const auto tmp = path.parent_path() / ("." + path.filename().string() + "." + std::to_string(rd()) + ".tmp");
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  // Messages name the file being written: the temporary one is an implementation detail.
  if (fd < 0) throw FileWriteError("cannot write " + path.string() + ": " + std::strerror(errno));
  try {
    write(fd);
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) throw FileWriteError("cannot write " + path.string() + ": " + std::strerror(errno));
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      throw FileWriteError("cannot rename " + tmp.string() + " to " + path.string() + ": " + std::strerror(errno));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace pypto_golden
