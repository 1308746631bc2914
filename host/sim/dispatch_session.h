// What stays in place across the dispatches of one program: the devices stay locked to it,
// an L3 program's ranks keep their window buffers (persistent windows: a launch sees what
// the previous one left there, as on hardware), and resident parameters keep their device
// buffers. A one-shot dispatch is a session of one dispatch.
#pragma once

#include "sim/device.h"
#include "sim/nodes.h"

#include <ATen/core/Tensor.h>

#include <memory>
#include <mutex>
#include <vector>

namespace pypto_golden::sim {

class CommDomain;
class RankDevices;

class DispatchSession {
 public:
  // Locks `device` (and an L3 program's rank devices, in one global order so two sessions
  // cannot deadlock) until the session ends. The program must outlive the session.
  DispatchSession(const Program& program, Device& device);
  ~DispatchSession();
  DispatchSession(const DispatchSession&) = delete;
  DispatchSession& operator=(const DispatchSession&) = delete;

  const Program& program() const { return program_; }
  Device& device() { return device_; }
  // The ranks of an L3 program; null for a single-device program.
  CommDomain* domain();
  // How many dispatches have started in this session.
  int64_t dispatches() const { return dispatches_; }

  // The device buffer kept for resident parameter k (undefined until the first dispatch
  // made it).
  at::Tensor& resident(size_t k);
  // Counts a dispatch as started.
  void begin_dispatch();

 private:
  const Program& program_;
  Device& device_;
  std::unique_lock<std::mutex> owner_;   // single-device programs
  std::unique_ptr<RankDevices> ranks_;   // L3 programs
  std::vector<at::Tensor> resident_;
  int64_t dispatches_ = 0;
};

}  // namespace pypto_golden::sim
