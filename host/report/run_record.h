// What one golden.run did, for the reports written after it (JUnit XML, the HTML report):
// its stages with their times, each output's verdict, and how the run ended.
#pragma once

#include "report/output_picture.h"

#include <optional>
#include <string>
#include <vector>

namespace pypto_golden {

struct StageRecord {
  std::string name;    // "compile", "runtime", ...
  double seconds = 0;
  std::string status;  // "done", "failed" or "interrupted"
};

struct OutputRecord {
  std::string name;
  bool passed = false;
  std::string shape_dtype;  // "shape=(4,) dtype=torch.float32"
  std::string gate;         // a compare_fn comparator's name, empty for the default allclose
  std::string detail;       // a failing output's report block
  std::string tolerance;    // "rtol=1e-05, atol=1e-05", or the comparator's repr
  std::optional<OutputPicture> picture;  // a failing output's, when the HTML report is on
};

// A task of the chip swimlane, for the HTML report's picture of it.
struct SwimlaneTask {
  std::string name;
  int device = 0, lane = 0;
  double start_us = 0, end_us = 0;
};

struct RunRecord {
  std::string kernel;    // the kernel's name (the build directory's on a replay)
  std::string platform;  // as asked: "a2a3sim", or "a2a3" under --simulate
  std::vector<StageRecord> stages;
  std::vector<OutputRecord> outputs;
  // Filled when the run has ended, by whoever saw the end: golden.run's wrapper knows the
  // result or the Python exception the script got.
  bool passed = false;
  bool validated = false;
  std::string error;       // the result's error text, or the exception's message
  std::string error_type;  // empty for a result; the exception's class name when the run raised
  double seconds = 0;
  std::string work_dir;
  // For the HTML report: the benchmark's samples (us) and the swimlane's first tasks.
  std::vector<double> bench_us;
  std::vector<SwimlaneTask> swimlane;
  size_t swimlane_total = 0;  // tasks recorded, of which `swimlane` holds the first
};

}  // namespace pypto_golden
