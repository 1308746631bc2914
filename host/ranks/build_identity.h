// What a host process and its rank workers compare at rendezvous: the same version of
// pypto-golden, built from the same sources against the same torch. A worker of another
// build would simulate other semantics, so it is refused before it runs anything.
#pragma once

#include <string>

namespace pypto_golden::ranks {

// "pypto-golden 0.1.0 (torch 2.13.0+cpu, sources 3f1c0d2a9b7e)"
std::string build_identity();

// This machine's host name, for messages about a rank ("localhost" when it has none).
std::string this_host_name();

}  // namespace pypto_golden::ranks
