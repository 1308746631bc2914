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

// SIGTERM stops a run as Ctrl-C does (the executable's handler, host/embed): both are
// async-signal-safe. `interrupt_if_dispatching` raises the flag above when a dispatch is
// running and says whether it did (else Python must be interrupted); `terminated()` says
// the stop came from SIGTERM, so messages name it and the exit status is 143.
bool interrupt_if_dispatching();
void note_terminated();
bool terminated();

// Throws sim::Interrupted when Ctrl-C was pressed.
void check_interrupt();

}  // namespace pypto_golden::sim
