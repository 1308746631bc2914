#include "ranks/build_identity.h"

#include "ranks/source_stamp.h"  // generated: PYPTO_GOLDEN_SOURCE_STAMP

#include <unistd.h>

namespace pypto_golden::ranks {

std::string build_identity() {
  return std::string("pypto-golden ") + PYPTO_GOLDEN_VERSION + " (torch " + PYPTO_GOLDEN_TORCH_VERSION + ", sources " +
         PYPTO_GOLDEN_SOURCE_STAMP + ")";
}

std::string this_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace pypto_golden::ranks
