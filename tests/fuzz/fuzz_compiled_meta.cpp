// libFuzzer target: compiled_meta.json text. The reader's contract is that any bytes give
// a CompiledMeta or an ArtifactError; any other exception, a crash or a sanitizer report is
// a finding.
#include "artifact/compiled_meta.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    pypto_golden::parse_compiled_meta(std::string(reinterpret_cast<const char*>(data), size), "compiled_meta.json");
  } catch (const pypto_golden::ArtifactError&) {
  }
  return 0;
}
