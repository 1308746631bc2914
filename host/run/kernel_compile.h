// The compile stage: compile the kernel object through its frontend, read the artifact's
// parameter directions, and check the specs against the kernel's parameters.
#pragma once

#include "artifact/compiled_meta.h"
#include "run/native_spec.h"
#include "run/stage_log.h"

#include <pybind11/pybind11.h>

#include <filesystem>
#include <vector>

namespace pypto_golden {

struct CompiledKernel {
  std::filesystem::path work_dir;
  CompiledMeta meta;
  std::string name;
};

// Compiles `fn` (a @pl.jit function) specialised on the specs, then stamps each spec's
// direction from compiled_meta.json. Throws SpecError when the specs do not match the
// kernel, ArtifactError when the build's sidecar is unusable.
CompiledKernel compile_kernel(const pybind11::handle& fn, std::vector<NativeSpec>& specs,
                              const pybind11::handle& config, const StageLog& log);

// runtime_dir replay: reads an existing build instead of compiling (no fn needed). A
// directory that is not a usable build is a RunFailure saying what is missing.
CompiledKernel open_build(const std::filesystem::path& dir, std::vector<NativeSpec>& specs,
                          const std::string& kernel_name, const StageLog& log);

// Checks names, order, count, kinds, shapes and dtypes against the artifact and stamps
// directions (exposed for tests). `by_name` (L3 programs): specs holding exactly the
// parameters' names are first put in the parameter order, as the public harness does.
void stamp_directions(std::vector<NativeSpec>& specs, const CompiledMeta& meta,
                      const std::string& kernel, const StageLog& log, bool by_name = false);

}  // namespace pypto_golden
