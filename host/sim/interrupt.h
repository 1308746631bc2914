// Ctrl-C during a simulator run: a SIGINT handler that only raises a flag, polled by the
// executor at every loop iteration so a long dispatch stops promptly.
#pragma once

namespace pypto_golden::sim {

// Installs the flag-raising SIGINT handler for its lifetime and restores the previous one
// (Python's, when embedded) afterwards. Clears the flag on entry. Scopes nest on the
// dispatching thread; only the outermost one installs the handler.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  bool installed_ = false;
};

bool interrupt_requested();

// Throws sim::Interrupted when Ctrl-C was pressed.
void check_interrupt();

}  // namespace pypto_golden::sim
