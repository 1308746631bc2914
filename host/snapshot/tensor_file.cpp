#include "snapshot/tensor_file.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace pypto_golden {
namespace {

// A file descriptor closed on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const void* data, size_t n, const std::filesystem::path& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw TensorFileError("cannot write " + path.string() + ": " + errno_text());
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

std::string describe_ivalue(const c10::IValue& v) {
  if (v.isTensorList() || v.isList()) return "list";
  if (v.isTuple()) return "tuple";
  if (v.isGenericDict()) return "dict";
  if (v.isInt()) return "int";
  if (v.isDouble()) return "float";
  if (v.isString()) return "str";
  if (v.isNone()) return "None";
  return v.tagKind();
}

}  // namespace

void save_tensor_file(const std::filesystem::path& path, const at::Tensor& tensor) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw TensorFileError("cannot create " + path.parent_path().string() + ": " + ec.message());

  // The pickle holds the tensor's whole storage: save a compact copy of views.
  at::Tensor t = tensor.is_contiguous() && tensor.storage_offset() == 0 &&
                         tensor.storage().nbytes() == tensor.nbytes()
                     ? tensor
                     : tensor.contiguous().clone();

  std::vector<char> pickle;
  torch::jit::Pickler pickler([&](const char* buf, size_t n) { pickle.insert(pickle.end(), buf, buf + n); },
                              nullptr, nullptr, nullptr);
  pickler.protocol();
  pickler.pushIValue(t);
  pickler.stop();

  std::random_device rd;
  const auto tmp = path.parent_path() / ("." + path.filename().string() + "." + std::to_string(rd()) + ".tmp");
  Fd out;
  out.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out.fd < 0) throw TensorFileError("cannot create " + tmp.string() + ": " + errno_text());
  try {
    {
      // Tensor bytes go straight from the tensor into the file: no in-memory archive.
      caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t n) {
        write_all(out.fd, data, n, tmp);
        return n;
      });
      torch::jit::writeArchiveAndTensors("data", pickle.data(), pickle.size(), pickler.tensorData(), writer);
      writer.writeEndOfFile();
    }
    // No fsync: the rename is what makes the file appear whole or not at all to anything that
    // outlives this process (SIGKILL, Ctrl-C, a crash); flushing to the platter on every save
    // would halve snapshot speed for a power-loss guarantee torch.save does not give either.
    if (::close(out.fd) != 0) {
      out.fd = -1;
      throw TensorFileError("cannot write " + tmp.string() + ": " + errno_text());
    }
    out.fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      throw TensorFileError("cannot rename " + tmp.string() + " to " + path.string() + ": " + errno_text());
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

at::Tensor load_tensor_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw TensorFileError(path.string() + " does not exist");
  c10::IValue value;
  try {
    caffe2::serialize::PyTorchStreamReader reader(path.string());
    value = torch::jit::readArchiveAndTensors("data", "", "data/", c10::nullopt, c10::nullopt, c10::nullopt, reader);
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (auto* c10e = dynamic_cast<const c10::Error*>(&e)) why = c10e->what_without_backtrace();
    why = why.substr(0, why.find('\n'));
    throw TensorFileError(path.string() + " is not a readable torch tensor file (" + why + ")");
  }
  if (!value.isTensor())
    throw TensorFileError(path.string() + " must contain a torch.Tensor, got " + describe_ivalue(value));
  return value.toTensor();
}

}  // namespace pypto_golden
