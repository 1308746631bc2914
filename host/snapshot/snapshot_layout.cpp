#include "snapshot/snapshot_layout.h"

namespace pypto_golden {

std::filesystem::path input_file(const std::filesystem::path& dir, const std::string& name) {
  return dir / "in" / (name + ".pt");
}

std::filesystem::path output_file(const std::filesystem::path& dir, const std::string& name) {
  return dir / "out" / (name + ".pt");
}

std::vector<std::filesystem::path> required_files(const std::filesystem::path& dir,
                                                  const std::vector<SnapshotEntry>& entries) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : entries) {
    if (e.role != SnapshotRole::Output) files.push_back(input_file(dir, e.name));
    if (e.role == SnapshotRole::Output || e.role == SnapshotRole::InputOutput) files.push_back(output_file(dir, e.name));
  }
  return files;
}

std::vector<std::filesystem::path> missing_files(const std::filesystem::path& dir,
                                                 const std::vector<SnapshotEntry>& entries) {
  std::vector<std::filesystem::path> missing;
  for (const auto& f : required_files(dir, entries)) {
    std::error_code ec;
    if (!std::filesystem::exists(f, ec)) missing.push_back(f);  // a directory in its place: the reader says so
  }
  return missing;
}

std::string python_path_list(const std::vector<std::filesystem::path>& paths) {
  std::string out = "[";
  for (size_t k = 0; k < paths.size(); ++k) {
    if (k) out += ", ";
    out += "'" + paths[k].string() + "'";
  }
  return out + "]";
}

}  // namespace pypto_golden
