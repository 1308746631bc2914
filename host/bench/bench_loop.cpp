#include "bench/bench_loop.h"

#include "sim/interrupt.h"
#include "sim/kernel_error.h"

#include <chrono>

namespace pypto_golden {

TimedDispatches time_dispatches(sim::DispatchSession& session, std::vector<sim::HostArg>& args, int rounds, int untimed,
                                const BeforeDispatch& before, const DescribeDispatch& describe) {
  sim::InterruptScope interrupt_scope;  // one for the whole loop, not one per dispatch
  const sim::DispatchOptions options{/*check_inputs=*/false};  // checked by the correctness dispatch
  auto next = [&] {
    sim::check_interrupt();
    const int64_t index = session.dispatches();
    if (before) before(index, args);
    const auto start = std::chrono::steady_clock::now();
    sim::DispatchReport report;
    try {
      report = sim::dispatch(session, args, options);
    } catch (const sim::SimError& e) {
      // The correctness dispatch passed, so what differs is this dispatch's state: say which.
      throw sim::SimError(std::string(e.what()) + "; in benchmark dispatch " + std::to_string(index) +
                          (describe ? " (" + describe(index) + ")" : std::string()));
    }
    return std::make_pair(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count(),
                          std::move(report.rank_busy_us));
  };
  for (int k = 0; k < untimed; ++k) next();
  TimedDispatches out;
  out.host_us.reserve(static_cast<size_t>(rounds));
  for (int k = 0; k < rounds; ++k) {
    auto [host_us, rank_us] = next();
    out.host_us.push_back(host_us);
    if (out.rank_us.size() < rank_us.size()) out.rank_us.resize(rank_us.size());
    for (size_t r = 0; r < rank_us.size(); ++r) out.rank_us[r].push_back(rank_us[r]);
  }
  return out;
}

}  // namespace pypto_golden
