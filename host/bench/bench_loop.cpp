#include "bench/bench_loop.h"

#include "sim/interrupt.h"

#include <chrono>

namespace pypto_golden {

std::vector<double> time_dispatches(const sim::Program& program, const std::vector<sim::HostArg>& args,
                                    sim::Device& device, int rounds, int warmup) {
  sim::InterruptScope interrupt_scope;  // one for the whole loop, not one per dispatch
  const sim::DispatchOptions options{/*check_inputs=*/false, /*find_unwritten=*/false};  // checked by the correctness dispatch
  for (int k = 0; k < warmup; ++k) {
    sim::check_interrupt();
    sim::dispatch(program, args, device, options);
  }
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(rounds));
  for (int k = 0; k < rounds; ++k) {
    sim::check_interrupt();
    const auto start = std::chrono::steady_clock::now();
    sim::dispatch(program, args, device, options);
    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return samples;
}

}  // namespace pypto_golden
