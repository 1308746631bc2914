// libFuzzer target: sim_program.json text. Any bytes give a Program or a ProgramError;
// anything else (another exception, a crash, a sanitizer report) is a finding.
#include "sim/kernel_error.h"
#include "sim/program_loader.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    pypto_golden::sim::parse_program(std::string(reinterpret_cast<const char*>(data), size), "sim_program.json");
  } catch (const pypto_golden::sim::ProgramError&) {
  }
  return 0;
}
