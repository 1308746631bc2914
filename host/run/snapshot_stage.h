// save_data and golden_data: writing and replaying a run's inputs and golden outputs.
#pragma once

#include "run/native_spec.h"

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pypto_golden {

// <dir>/in: every In and InOut tensor (as generated, before dispatch) and every scalar.
void save_inputs(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs,
                 const std::vector<at::Tensor>& host);
// <dir>/out: every golden output.
void save_goldens(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs,
                  const std::map<std::string, at::Tensor>& expected);

// Replaces each scalar spec's value by the one cached in <dir>/in (before compile, so the
// artifact is specialised on the replayed value). RunFailure when a file is missing, is
// not a 0-dim tensor or has another dtype.
void load_cached_scalars(const std::filesystem::path& dir, std::vector<NativeSpec>& specs);

// RunFailure listing every missing file when the snapshot lacks one the directions need.
void check_snapshot_complete(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs);

// In / InOut tensors from <dir>/in into `host` (checked against the specs).
void load_inputs(const std::filesystem::path& dir, const std::vector<NativeSpec>& specs,
                 std::vector<at::Tensor>& host);
// Golden outputs from <dir>/out (checked against the specs).
std::map<std::string, at::Tensor> load_goldens(const std::filesystem::path& dir,
                                               const std::vector<NativeSpec>& specs);

}  // namespace pypto_golden
