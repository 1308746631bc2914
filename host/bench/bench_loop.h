// The timed dispatch loop of benchmark mode, entirely native: nothing crosses into Python
// between rounds.
#pragma once

#include "sim/dispatch.h"

#include <functional>
#include <string>
#include <vector>

namespace pypto_golden {

// The samples of the timed dispatches, in order.
struct TimedDispatches {
  std::vector<double> host_us;               // the whole dispatch: upload, execution, read-back
  std::vector<std::vector<double>> rank_us;  // L3: [rank][round], the host time of the rank's chip programs
};

// Called before physical dispatch `index` of the session (0 is the session's first) to set
// that dispatch's arguments (stepped scalars).
using BeforeDispatch = std::function<void(int64_t index, std::vector<sim::HostArg>& args)>;

// What a failure report says about dispatch `index`'s arguments ("pos=20").
using DescribeDispatch = std::function<std::string(int64_t index)>;

// Runs `untimed` then `rounds` timed dispatches as the session's next ones. A failing
// dispatch's SimError gets "; in benchmark dispatch <index> (<describe(index)>)". Stops with
// sim::Interrupted on Ctrl-C.
TimedDispatches time_dispatches(sim::DispatchSession& session, std::vector<sim::HostArg>& args, int rounds, int untimed,
                                const BeforeDispatch& before, const DescribeDispatch& describe);

}  // namespace pypto_golden
