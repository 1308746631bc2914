// The layout of a data snapshot: <dir>/in/<name>.pt (inputs, InOut initial values and
// scalars) and <dir>/out/<name>.pt (golden outputs), keyed on parameter directions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pypto_golden {

enum class SnapshotRole { Input, Output, InputOutput, Scalar };

struct SnapshotEntry {
  std::string name;
  SnapshotRole role;
};

std::filesystem::path input_file(const std::filesystem::path& dir, const std::string& name);
std::filesystem::path output_file(const std::filesystem::path& dir, const std::string& name);

// Every file a replay needs: In and scalars -> in/, Out -> out/, InOut -> both.
std::vector<std::filesystem::path> required_files(const std::filesystem::path& dir,
                                                  const std::vector<SnapshotEntry>& entries);

// The required files that do not exist, in spec order.
std::vector<std::filesystem::path> missing_files(const std::filesystem::path& dir,
                                                 const std::vector<SnapshotEntry>& entries);

// "['/a/in/x.pt', '/a/out/y.pt']", as Python prints a list of strings.
std::string python_path_list(const std::vector<std::filesystem::path>& paths);

}  // namespace pypto_golden
