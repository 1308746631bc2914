// The DFX outputs of RunConfig on the simulator, under <work_dir>/dfx_outputs/ as PyPTO's
// runtime lays them out: the chip swimlane (enable_chip_swimlane) as its records and as a
// Chrome trace-event file that Perfetto and chrome://tracing open, the task graph
// (enable_dep_gen) as deps.json and Graphviz DOT, and per-scope statistics
// (enable_scope_stats), the argument dump (enable_dump_args) as .pt files with a manifest, and
// per-task counters (enable_pmu) as pmu.csv with the columns a simulator can fill.
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
  bool dep_gen = false;
  int dump_args = 0;  // 0 off; 2 every window's data; 3 every window's metadata (1: marked tensors only)
  int pmu = 0;        // 0 off, else the event type asked for (the simulator counts the same either way)
  bool any() const { return swimlane_level > 0 || scope_stats || dep_gen || dump_args > 0 || pmu > 0; }
  // Whether the tasks' windows are recorded: the graph, the dump and the PMU's byte counts need them.
  bool windows() const { return dep_gen || dump_args > 0 || pmu > 0; }
};

// Writes the files `run` asks for from the recorded tasks, tensors, submits and aliases
// (TaskRecorder::tasks(), tensors(), submits() and aliases()); returns their paths.
std::vector<std::filesystem::path> write_dfx_outputs(const std::filesystem::path& dir, const DfxRun& run,
                                                     const std::vector<sim::TaskRecord>& tasks,
                                                     const std::vector<sim::RecordedTensor>& tensors,
                                                     const std::vector<sim::SubmitRecord>& submits,
                                                     const std::vector<sim::TaskRecorder::TensorAlias>& aliases);

}  // namespace pypto_golden
