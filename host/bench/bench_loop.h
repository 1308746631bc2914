// The timed dispatch loop of benchmark mode, entirely native: nothing crosses into Python
// between rounds.
#pragma once

#include "sim/device.h"
#include "sim/dispatch.h"
#include "sim/nodes.h"

#include <vector>

namespace pypto_golden {

// Runs `warmup` untimed then `rounds` timed dispatches of `program` and returns each timed
// dispatch's host wall time in microseconds (upload, execution and read-back included).
// Stops with sim::Interrupted on Ctrl-C.
std::vector<double> time_dispatches(const sim::Program& program, const std::vector<sim::HostArg>& args,
                                    sim::Device& device, int rounds, int warmup);

}  // namespace pypto_golden
