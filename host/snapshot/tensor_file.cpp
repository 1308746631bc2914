#include "snapshot/tensor_file.h"

#include "snapshot/atomic_file.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/pickler.h>


namespace pypto_golden {
namespace {

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

bool native_tensor_file_dtype(c10::ScalarType type) {
  switch (type) {
    case at::kDouble: case at::kFloat: case at::kHalf: case at::kBFloat16: case at::kLong: case at::kInt:
    case at::kShort: case at::kChar: case at::kByte: case at::kBool: case at::kComplexFloat:
    case at::kComplexDouble:
      return true;
    default:
      return false;
  }
}

void save_tensor_file(const std::filesystem::path& path, const at::Tensor& tensor) {
  if (!native_tensor_file_dtype(tensor.scalar_type()))
    throw TensorFileError("cannot write " + path.string() + ": a " + c10::toString(tensor.scalar_type()) +
                          " tensor needs torch.save's _rebuild_tensor_v3 form, which this writer lacks");
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

  try {
    write_file_atomically(path, [&](int fd) {
      // Tensor bytes go straight from the tensor into the file: no in-memory archive.
      caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t n) {
        write_all(fd, data, n, path);
        return n;
      });
      torch::jit::writeArchiveAndTensors("data", pickle.data(), pickle.size(), pickler.tensorData(), writer);
      writer.writeEndOfFile();
    });
  } catch (const FileWriteError& e) {
    throw TensorFileError(e.what());
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
