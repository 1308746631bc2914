#include "sim/interrupt.h"

#include "sim/kernel_error.h"

#include <atomic>
#include <csignal>

namespace pypto_golden::sim {
namespace {

std::atomic<bool> g_requested{false};
std::atomic<bool> g_terminated{false};
struct sigaction g_previous;
std::atomic<int> g_depth{0};  // scopes nest (a benchmark loop around its dispatches): only the outermost installs

extern "C" void on_sigint(int) { g_requested.store(true, std::memory_order_relaxed); }

}  // namespace

InterruptScope::InterruptScope() {
  if (g_depth++ > 0) return;
  g_requested.store(false);
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  installed_ = sigaction(SIGINT, &action, &g_previous) == 0;
}

InterruptScope::~InterruptScope() {
  --g_depth;
  if (installed_) sigaction(SIGINT, &g_previous, nullptr);
}

bool interrupt_requested() { return g_requested.load(std::memory_order_relaxed); }

bool interrupt_if_dispatching() {
  if (g_depth.load(std::memory_order_relaxed) == 0) return false;
  g_requested.store(true, std::memory_order_relaxed);
  return true;
}

void note_terminated() { g_terminated.store(true, std::memory_order_relaxed); }

bool terminated() { return g_terminated.load(std::memory_order_relaxed); }

void check_interrupt() {
  if (g_requested.load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace pypto_golden::sim
