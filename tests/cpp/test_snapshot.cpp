#include "snapshot/snapshot_layout.h"
#include "snapshot/tensor_file.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <fstream>

using namespace pypto_golden;
namespace fs = std::filesystem;

namespace {
fs::path scratch(const char* name) {
  auto dir = fs::temp_directory_path() / "pypto_golden_snapshot_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("tensors round-trip through .pt files, views saved compactly") {
  auto dir = scratch("roundtrip");
  at::Tensor big = at::arange(24, at::kFloat).reshape({4, 6});
  at::Tensor view = big.slice(1, 2, 4);  // non-contiguous
  save_tensor_file(dir / "sub" / "v.pt", view);
  at::Tensor back = load_tensor_file(dir / "sub" / "v.pt");
  CHECK(back.sizes().equals({4, 2}));
  CHECK(at::equal(back, view));
  CHECK(back.storage().nbytes() == 4 * 2 * sizeof(float));
  save_tensor_file(dir / "s.pt", at::scalar_tensor(7, at::kInt));
  CHECK(load_tensor_file(dir / "s.pt").item<int>() == 7);
  CHECK(load_tensor_file(dir / "s.pt").dim() == 0);
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    CHECK(entry.path().extension() != ".tmp");  // no temporaries left
}

TEST_CASE("unreadable files name themselves") {
  auto dir = scratch("bad");
  CHECK_THROWS_WITH_AS(load_tensor_file(dir / "nope.pt"), ((dir / "nope.pt").string() + " does not exist").c_str(),
                       TensorFileError);
  std::ofstream(dir / "junk.pt") << "not a zip";
  try {
    load_tensor_file(dir / "junk.pt");
    FAIL("expected TensorFileError");
  } catch (const TensorFileError& e) {
    CHECK(std::string(e.what()).rfind((dir / "junk.pt").string() + " is not a readable torch tensor file (", 0) == 0);
  }
}

TEST_CASE("required files follow the directions") {
  fs::path d = "/snap";
  std::vector<SnapshotEntry> entries = {{"x", SnapshotRole::Input}, {"a", SnapshotRole::Scalar},
                                        {"acc", SnapshotRole::InputOutput}, {"y", SnapshotRole::Output}};
  auto files = required_files(d, entries);
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.string());
  CHECK(names == std::vector<std::string>{"/snap/in/x.pt", "/snap/in/a.pt", "/snap/in/acc.pt", "/snap/out/acc.pt",
                                          "/snap/out/y.pt"});
  CHECK(python_path_list({"/a/in/x.pt", "/a/out/y.pt"}) == "['/a/in/x.pt', '/a/out/y.pt']");
  CHECK(missing_files(d, entries).size() == 5);
}
