// One tensor in one .pt file, in the zip format of torch.save (loads with Python's
// torch.load(path, weights_only=True); files written by torch.save load here).
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace pypto_golden {

// A .pt file that cannot be read or does not hold what it must; the message names the file.
class TensorFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether this file's writer and reader handle `type`: the dtypes with a typed storage
// class in torch.save's format (torch.FloatStorage, ...). torch.save writes the others (the
// 8-bit floats, uint16/32/64) as _rebuild_tensor_v3 over an UntypedStorage, a form the
// TorchScript serializer used here neither writes nor reads (host/run/tensor_files does).
bool native_tensor_file_dtype(c10::ScalarType type);

// Writes `tensor` to `path` atomically: a hidden temporary file in the same directory,
// then renamed over `path`. A killed process leaves the old file or none, never a
// half-written one. Creates missing parent directories.
void save_tensor_file(const std::filesystem::path& path, const at::Tensor& tensor);

// Reads a .pt file holding one tensor. Throws TensorFileError naming the file when it is
// missing, not a torch zip archive, truncated, or holds something else ("got list").
at::Tensor load_tensor_file(const std::filesystem::path& path);

// Same, from a file's bytes already in memory; `origin` names the file in messages.
at::Tensor load_tensor_bytes(const std::string& bytes, const std::string& origin);

}  // namespace pypto_golden
