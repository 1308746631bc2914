// One dispatch of a simulator program on a device: upload inputs, run, read outputs back.
#pragma once

#include "sim/device.h"
#include "sim/dispatch_session.h"
#include "sim/nodes.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pypto_golden::sim {

// An argument as the host holds it: a host tensor or a scalar, in parameter order.
struct HostArg {
  bool is_tensor = true;
  at::Tensor tensor;  // host memory: uploaded for In / InOut
  at::Tensor result;  // where Out / InOut results are read back (undefined: into `tensor`)
  c10::Scalar scalar;  // the 0-dim spec value, exactly (int64 beyond 2^53 included)
  // A resident tensor: the session's first dispatch uploads it (or allocates a pure Out) and
  // reads it back; later dispatches reuse that device buffer as the kernel left it.
  bool resident = false;
  // An Out / InOut the caller gives up (not resident, no `result`): the kernel's result comes
  // back as DispatchReport::outputs[k] instead of being copied into `tensor`. An InOut's
  // `tensor` becomes the device buffer itself (the caller keeps no other use of it); a pure
  // Out's `tensor` only gives the shape and dtype (it may be a meta tensor).
  bool hand_over = false;
  // An Out / InOut the kernel may work in directly, since the caller's tensor receives the
  // result anyway (CompiledProgram.__call__): no device buffer, no read-back. Honoured for a
  // contiguous, non-resident tensor that shares no memory with another argument (otherwise
  // it is copied as usual); a pure Out is poisoned in place first. After a dispatch that
  // fails, such a tensor's contents are unspecified (part of the kernel's writes).
  bool in_place = false;

  // A handed-over pure Out shaped like `host`: a meta tensor, so no host bytes are held for it.
  void hand_over_out(const at::Tensor& host);
};

// Host arguments that do not fit the program's parameters.
class ArgumentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct DispatchOptions {
  // Compare each In parameter's device memory with the host copy afterwards: a kernel that
  // writes an In parameter loses that write on real hardware (In is never read back).
  bool check_inputs = true;
  // Records every task the dispatch runs on `device` (the chip swimlane); none when null.
  TaskRecorder* recorder = nullptr;
};

struct DispatchReport {
  std::vector<std::string> written_inputs;  // In parameters the kernel wrote
  std::vector<double> rank_busy_us;  // L3: per rank, the host time its chip programs ran
  std::string signal_left_set;       // L3: CommDomain::signal_left_set() at the end
  std::vector<at::Tensor> outputs;   // per parameter: the result of a hand_over argument
  // Per parameter: for a pure Out whose writes the dispatch tracked (a write-only one,
  // sim/write_log.h), exactly the elements the kernel never wrote; nullopt for the others.
  std::vector<std::optional<ElementRuns>> unwritten;
};

// Runs the entry function. In / InOut tensors are uploaded to device memory (shared
// copy-on-write, Device::upload), pure Out tensors get poisoned device memory
// (Device::poison_output: an element the kernel never writes still holds the poison,
// which validation finds in a failing output, Device::poison_mask_against; for a pure Out
// the body only writes, the poison goes in after the run where it did not write,
// sim/write_log.h), and Out / InOut
// results are read back into the host tensors, handed over (HostArg::hand_over) or left in
// them (HostArg::in_place). Throws ArgumentError, SimError (kernel failure, located) or
// Interrupted.
// An L3 program (Program::devices) keeps its host tensors in `device` and runs its chip
// programs on one simulated device per rank (sim/device_registry), each with its own
// workers and its own copy of every window buffer.
DispatchReport dispatch(const Program& program, const std::vector<HostArg>& args, Device& device,
                        const DispatchOptions& options = {});
// The same, as the next dispatch of a session (sim/dispatch_session.h).
DispatchReport dispatch(DispatchSession& session, const std::vector<HostArg>& args,
                        const DispatchOptions& options = {});

}  // namespace pypto_golden::sim
