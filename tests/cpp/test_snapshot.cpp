#include "snapshot/pickle_scan.h"
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

TEST_CASE("a pickle's claimed lengths are checked against its size before torch reads it") {
  auto problem = [](const std::string& p) {
    return pickle_length_problem(reinterpret_cast<const unsigned char*>(p.data()), p.size());
  };
  using namespace std::string_literals;
  CHECK_FALSE(problem("\x80\x02X\x03\x00\x00\x00" "abc."s).has_value());
  CHECK(problem("\x80\x02X\x0a\x00\x00\x00" "abc."s) ==
        std::optional<std::string>("a string of 10 bytes at byte 2 of a 11-byte pickle"));
  CHECK(problem("\x80\x04\x8e\x00\x00\x00\x00\x00\x00\x00\x80." "x"s) ==
        std::optional<std::string>("a bytes object of 9223372036854775808 bytes at byte 2 of a 13-byte pickle"));
  // Arguments of every layout are stepped over: fixed-size, text lines, counted.
  CHECK(problem("\x80\x02K\x07J\x01\x02\x03\x04" "ctorch\nFloatStorage\n" "U\x02hiq\x01" "C\x05" "ab."s) ==
        std::optional<std::string>("a bytes object of 5 bytes at byte 35 of a 40-byte pickle"));
  // The scan ends at STOP, and at an opcode it does not know: the unpickler stops there too.
  CHECK_FALSE(problem("\x80\x02.X\xff\xff\xff\xff"s).has_value());
  CHECK_FALSE(problem("\x80\x02\xffX\xff\xff\xff\xff"s).has_value());
  CHECK_FALSE(problem("\x80\x02X\x01"s).has_value());  // truncated count: the unpickler's message
  // A memo index the unpickler would grow its memo table to (a fuzz finding: 2.8 GB).
  CHECK_FALSE(problem("\x80\x02N\x72\x05\x00\x00\x00."s).has_value());
  CHECK(problem("\x80\x02N\x72\x00\x00\x00\x0a."s) ==
        std::optional<std::string>("a memo index of 167772160 at byte 3 of a 9-byte pickle"));
}
