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

}  // namespace pypto_golden::sim
