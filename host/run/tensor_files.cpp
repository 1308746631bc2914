#include "run/tensor_files.h"

#include "snapshot/atomic_file.h"
#include "snapshot/tensor_file.h"

#include <pybind11/pybind11.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

void save_pt_file(const std::filesystem::path& path, const at::Tensor& tensor) {
  if (native_tensor_file_dtype(tensor.scalar_type())) return save_tensor_file(path, tensor);
  try {
    write_file_atomically(path, [&](int fd) {
      py::gil_scoped_acquire gil;
      try {
        py::module_ os = py::module_::import("os");
        py::object file = os.attr("fdopen")(os.attr("dup")(fd), "wb");
        py::module_::import("torch").attr("save")(tensor.contiguous(), file);
        file.attr("close")();
      } catch (py::error_already_set& e) {
        throw FileWriteError("cannot write " + path.string() + " (" + first_line(e.what()) + ")");
      }
    });
  } catch (const FileWriteError& e) {
    throw TensorFileError(e.what());
  }
}

at::Tensor load_pt_file(const std::filesystem::path& path) {
  try {
    return load_tensor_file(path);
  } catch (const TensorFileError& e) {
    if (std::string(e.what()).find("_rebuild_tensor_v3") == std::string::npos) throw;
  }
  py::gil_scoped_acquire gil;
  py::object value;
  try {
    value = py::module_::import("torch").attr("load")(path.string(), py::arg("weights_only") = true,
                                                      py::arg("map_location") = "cpu");
  } catch (py::error_already_set& e) {
    throw TensorFileError(path.string() + " is not a readable torch tensor file (" + first_line(e.what()) + ")");
  }
  if (!THPVariable_Check(value.ptr()))
    throw TensorFileError(path.string() + " must contain a torch.Tensor, got " +
                          std::string(py::str(py::type::of(value).attr("__name__"))));
  return value.cast<at::Tensor>();
}

}  // namespace pypto_golden
