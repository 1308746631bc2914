#include "run/snapshot_stage.h"

#include "run/run_errors.h"
#include "snapshot/snapshot_layout.h"
#include "run/tensor_files.h"
#include "snapshot/tensor_file.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

namespace pypto_golden {
namespace {

std::vector<SnapshotEntry> entries_of(const std::vector<NativeSpec>& specs) {
  std::vector<SnapshotEntry> entries;
  for (const auto& s : specs) {
    SnapshotRole role = !s.is_tensor                       ? SnapshotRole::Scalar
                        : s.direction == Direction::In     ? SnapshotRole::Input
                        : s.direction == Direction::Out    ? SnapshotRole::Output
                                                           : SnapshotRole::InputOutput;
    entries.push_back({s.name, role});
  }
  return entries;
}

// Loads one file; a file that cannot be read becomes a failed run naming it.
at::Tensor load(const std::filesystem::path& path) {
  try {
    return load_pt_file(path);
  } catch (const TensorFileError& e) {
    throw RunFailure(std::string("golden_data: ") + e.what());
  }
}

at::Tensor load_checked(const std::filesystem::path& path, const NativeSpec& spec) {
  at::Tensor t = load(path);
  if (t.scalar_type() != spec.dtype || !t.sizes().equals(spec.shape))
    throw RunFailure("golden_data: " + path.string() + " holds a " + torch_dtype_repr(t.scalar_type()) +
                     " tensor of shape " + python_shape_repr(t.sizes()) + ", but spec '" + spec.name + "' is " +
                     torch_dtype_repr(spec.dtype) + " of shape " + python_shape_repr(spec.shape));
  return t.contiguous();
}

void save(const std::filesystem::path& path, const at::Tensor& t) {
  try {
    save_pt_file(path, t);
  } catch (const TensorFileError& e) {
    throw RunFailure(std::string("save_data: ") + e.what());
  }
}

}  // namespace

void save_inputs(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs,
                 const std::vector<at::Tensor>& host) {
  for (size_t k = 0; k < specs.size(); ++k) {
    const NativeSpec& s = specs[k];
    if (!s.is_tensor) save(input_file(dir, s.name), s.value);
    else if (s.direction != Direction::Out) save(input_file(dir, s.name), host[k]);
  }
}

void save_goldens(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs,
                  const std::map<std::string, at::Tensor>& expected) {
  for (const auto& s : specs)
    if (s.is_tensor && s.direction != Direction::In) save(output_file(dir, s.name), expected.at(s.name));
}

void load_cached_scalars(const std::filesystem::path& dir, std::vector<NativeSpec>& specs) {
  for (auto& s : specs) {
    if (s.is_tensor) continue;
    const auto path = input_file(dir, s.name);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;  // reported with the other missing files
    at::Tensor t = load(path);
    if (t.dim() != 0)
      throw RunFailure("golden_data: " + path.string() + " must contain a 0-dim torch.Tensor, got " +
                       python_shape_repr(t.sizes()));
    if (t.scalar_type() != s.dtype)
      throw RunFailure("golden_data: " + path.string() + " dtype mismatch: spec=" + torch_dtype_repr(s.dtype) +
                       " cache=" + torch_dtype_repr(t.scalar_type()));
    s.value = t;
  }
}

void check_snapshot_complete(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs) {
  auto missing = missing_files(dir, entries_of(specs));
  if (!missing.empty()) throw RunFailure("golden_data is missing files: " + python_path_list(missing));
}

void load_inputs(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs,
                 std::vector<at::Tensor>& host) {
  for (size_t k = 0; k < specs.size(); ++k)
    if (specs[k].is_tensor && specs[k].direction != Direction::Out)
      host[k] = load_checked(input_file(dir, specs[k].name), specs[k]);
}

std::map<std::string, at::Tensor> load_goldens(const std::filesystem::path& dir,
                                               const std::vector<NativeSpec>& specs) {
  std::map<std::string, at::Tensor> expected;
  for (const auto& s : specs)
    if (s.is_tensor && s.direction != Direction::In) expected[s.name] = load_checked(output_file(dir, s.name), s);
  return expected;
}

}  // namespace pypto_golden
