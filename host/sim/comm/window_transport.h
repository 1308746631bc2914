// The one narrow interface for traffic between the ranks of an L3 program: window buffers
// (allocate, map) and signals (notify, wait). Every rank holds each buffer at the same
// place in its window, so a peer's copy of a local view is the same offset in the peer's
// mapping. InProcessTransport keeps every rank in this process; a multi-process transport
// implements the same calls.
#pragma once

#include <chrono>
#include <cstdint>

namespace pypto_golden::sim {

enum class NotifyOp { AtomicAdd, Set };
enum class WaitCmp { Eq, Ge };

struct WaitResult {
  bool satisfied = false;
  bool aborted = false;  // another rank failed: nobody will notify any more
  int32_t found = 0;     // the slot's value when the wait ended
};

class WindowTransport {
 public:
  virtual ~WindowTransport() = default;

  virtual int world_size() const = 0;
  // A new buffer of `nbytes` on every rank, zeroed (kernels count on zeroed signals); returns its id.
  virtual int allocate(int64_t nbytes) = 0;
  virtual int buffer_count() const = 0;
  virtual int64_t buffer_bytes(int buffer) const = 0;
  // Where `rank`'s copy of the buffer is mapped in this process (null when not held here).
  virtual uint8_t* map(int rank, int buffer) = 0;
  // Whether this process holds `rank`'s copy of the buffers.
  virtual bool holds(int rank) const = 0;

  // Applies `op` with `value` to the signal slot (in some rank's mapping) and wakes its waiters.
  virtual void notify(int32_t* slot, int32_t value, NotifyOp op) = 0;
  // Blocks until cmp(*slot, expected) holds, the timeout passes, or abort() is called.
  virtual WaitResult wait(const int32_t* slot, int32_t expected, WaitCmp cmp, std::chrono::milliseconds timeout) = 0;
  // A rank failed: every wait, now and later, returns at once.
  virtual void abort() = 0;
  // While the clock is held (+1 holds it, -1 lets go; holds nest), waits' timeouts do not
  // run: with ranks in processes, a peer whose launch is still receiving its data from the
  // host has not started, however long that takes, and cannot have notified yet.
  virtual void hold_clock(int delta) = 0;
  // Gives waits `credit` more than their timeout (0: none): a rank whose launch started
  // before a peer's gives the peer as long to catch up (with ranks in processes, launches
  // start when their data has arrived; ranks in threads start together).
  virtual void set_wait_credit(std::chrono::milliseconds credit) = 0;
};

}  // namespace pypto_golden::sim
