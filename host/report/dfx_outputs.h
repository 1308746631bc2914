// The DFX outputs of RunConfig on the simulator, under <work_dir>/dfx_outputs/ as PyPTO's
// runtime lays them out: the chip swimlane (enable_chip_swimlane) as its records and as a
// Chrome trace-event file that Perfetto and chrome://tracing open, and per-scope statistics
// (enable_scope_stats).
#pragma once

#include "sim/task_recorder.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pypto_golden {

struct DfxRun {
  std::string kernel;
  std::string source_file;
  std::string platform;
  int swimlane_level = 0;    // 0 off, 1..4 as PyPTO's levels
  bool scope_stats = false;
};

// Writes the files `run` asks for from the recorded tasks; returns their paths.
std::vector<std::filesystem::path> write_dfx_outputs(const std::filesystem::path& dir, const DfxRun& run,
                                                     const std::vector<sim::TaskRecord>& tasks);

}  // namespace pypto_golden
