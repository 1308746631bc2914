// Builds an executable Program from sim_program.json (format in IR.md).
#pragma once

#include "sim/nodes.h"

#include <filesystem>
#include <memory>
#include <string>

namespace pypto_golden::sim {

constexpr int kProgramVersion = 1;
constexpr const char* kProgramFile = "sim_program.json";

// Throws ProgramError saying what is missing or malformed and how to rebuild.
std::unique_ptr<Program> load_program(const std::filesystem::path& build_dir);
std::unique_ptr<Program> parse_program(const std::string& text, const std::string& origin);

// load_program, remembered per build directory until sim_program.json changes (size or
// modification time), so repeated dispatches of one build parse it once.
std::shared_ptr<const Program> load_program_cached(const std::filesystem::path& build_dir);

}  // namespace pypto_golden::sim
