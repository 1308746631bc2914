// One simulated device: it owns its memory (separate from host tensors) and its workers.
// Dispatch names the device, so several devices can exist side by side later (L3).
#pragma once

#include "sim/device_memory.h"
#include "sim/strided_view.h"
#include "sim/thread_pool.h"
#include "sim/write_log.h"

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace pypto_golden::sim {

class CommDomain;
class TaskRecorder;

struct DeviceOptions {
  int threads = 1;        // PYPTO_SIM_THREADS
  bool shuffle = false;   // PYPTO_SIM_SHUFFLE: independent iterations in random order
  uint64_t seed = 0;
  bool zero_outputs = false;  // PYPTO_SIM_OUT_INIT=zero: pure Out memory starts zeroed, not poisoned
  bool nan_check = false;     // PYPTO_SIM_NAN_CHECK: the first op to make a NaN / inf is an error

  bool operator==(const DeviceOptions& o) const {
    return threads == o.threads && shuffle == o.shuffle && seed == o.seed && zero_outputs == o.zero_outputs &&
           nan_check == o.nan_check;
  }
  bool operator!=(const DeviceOptions& o) const { return !(*this == o); }
};

// Reads PYPTO_SIM_THREADS / PYPTO_SIM_SHUFFLE / PYPTO_SIM_OUT_INIT / PYPTO_SIM_NAN_CHECK; throws std::invalid_argument naming the
// variable, what it must be and what it holds.
DeviceOptions device_options_from_env();

class Device {
 public:
  Device(int id, const DeviceOptions& options);

  int id() const { return id_; }
  ThreadPool& pool() { return pool_; }
  const DeviceOptions& options() const { return options_; }

  // The device's copy of a host tensor (In / InOut parameters). With `share` (for a tensor
  // the kernel never writes: ParamInfo::may_be_written), a whole contiguous host tensor is
  // shared copy-on-write, so no bytes move; otherwise, and for any other tensor, it is
  // copied. Only sequential writes may touch a shared copy (torch's copy-on-write is not
  // safe for two threads making the first write at once), hence the analysis.
  at::Tensor upload(const at::Tensor& host, bool share = false);
  // The start of a pure Out parameter's device memory (never uploaded): a poison pattern
  // (NaN for floats, 0xA5 bytes for integers) so unwritten or read-before-write
  // elements show up in validation; zeroes instead under PYPTO_SIM_OUT_INIT=zero.
  void poison_output(const at::Tensor& t);
  // The same start, given after the run to only the elements of each tensor of `log` the
  // kernel did not write (a pure Out it only writes, sim/write_log.h).
  // Returns, per tracked tensor, the runs it filled: exactly the elements never written.
  std::vector<ElementRuns> poison_unwritten(const WriteLog& log);
  // Whether pure Outs start poisoned (the default) rather than zeroed.
  bool poisons_outputs() const { return !options_.zero_outputs; }
  // The elements of a pure Out `actual` read back from a poisoning device that hold the
  // poison pattern where `expected` (same shape and dtype) does not, as a bool tensor shaped
  // like `actual`: the never-written ones that explain a mismatch. An integer's poison (0xA5
  // bytes: int8 -91) is also a value a kernel computes, so an element written with it counts
  // only when the golden expects something else.
  static at::Tensor poison_mask_against(const at::Tensor& actual, const at::Tensor& expected);
  // Bytes of device memory in use now (the tensors alive in it; a shared, never-written
  // input is host memory and does not count).
  int64_t live_bytes() const { return memory_->live_bytes(); }
  // Uninitialised device memory (create_tensor inside a kernel, scratch).
  at::Tensor allocate(at::IntArrayRef shape, c10::ScalarType dtype);
  // Copies device memory back into the host tensor.
  void download(const at::Tensor& device_tensor, const at::Tensor& host);
  // Whether device memory still holds exactly the host tensor's bytes (NaN payloads
  // included): how a write to an In parameter is noticed.
  bool same_bytes(const at::Tensor& device_tensor, const at::Tensor& host);

  // Held for a whole dispatch: one kernel at a time owns the device's workers and the
  // order of its shuffled loops, as on a real device's stream.
  std::mutex& dispatch_mutex() { return dispatch_mu_; }

  // Iteration order for a parallel loop of n iterations (empty = natural order).
  std::vector<int64_t> iteration_order(int64_t n);

  // While an L3 program runs on it: the ranks' domain and this device's rank (the pld.* ops
  // read them); null and -1 otherwise. Set and cleared by the dispatch that holds the device.
  void bind_rank(CommDomain* domain, int rank) {
    comm_ = domain;
    rank_ = rank;
  }
  CommDomain* comm() const { return comm_; }
  int rank() const { return rank_; }

  // While a dispatch runs: the pure Out tensors whose writes it tracks; null otherwise.
  void set_write_log(WriteLog* log) { write_log_ = log; }
  WriteLog* write_log() const { return write_log_; }

  // While a dispatch runs: the storages of its arguments, which outlive every window the
  // kernel cuts of them, so that windows borrow them (sim/strided_view.h); empty otherwise.
  void set_dispatch_storages(std::vector<const c10::StorageImpl*> storages) {
    dispatch_storages_ = std::move(storages);
  }
  // How a window of `base` cut by the running kernel holds its storage (through the free
  // function below where the device may be null).
  Ownership window_ownership(const at::Tensor& base) const {
    const c10::StorageImpl* s = base.storage().unsafeGetStorageImpl();
    for (const c10::StorageImpl* each : dispatch_storages_)
      if (each == s) return Ownership::Borrowed;
    return Ownership::Shared;
  }

  // While a dispatch runs: the storages of its In arguments the program never writes
  // (ParamInfo::may_be_written; empty otherwise). Nothing changes their bytes until the
  // dispatch returns, so a tile loaded from one may be a view of it instead of a copy.
  void set_read_only_storages(std::vector<const c10::StorageImpl*> storages) {
    read_only_storages_ = std::move(storages);
  }
  bool read_only(const at::Tensor& base) const {
    if (read_only_storages_.empty() || !base.has_storage()) return false;
    const c10::StorageImpl* s = base.storage().unsafeGetStorageImpl();
    for (const c10::StorageImpl* each : read_only_storages_)
      if (each == s) return true;
    return false;
  }

  // While a dispatch records its tasks (the chip swimlane): where they go; null otherwise.
  void set_recorder(TaskRecorder* recorder) { recorder_ = recorder; }
  TaskRecorder* recorder() const { return recorder_; }

 private:
  int id_;
  // Copies or fills large buffers on the device's own workers (not torch's thread pool,
  // which the golden sizes for its own work).
  void copy_bytes(void* dst, const void* src, size_t bytes);
  void fill_bytes(void* dst, int pattern, size_t bytes);
  // The byte a pure Out starts as: the dtype's poison, or 0 under PYPTO_SIM_OUT_INIT=zero.
  int output_start_byte(c10::ScalarType dtype) const;
  // body(offset, length) for each chunk of [0, bytes), chunks spread over the workers.
  void for_each_chunk(size_t bytes, const std::function<void(size_t, size_t)>& body);

  DeviceOptions options_;
  TaskRecorder* recorder_ = nullptr;
  WriteLog* write_log_ = nullptr;
  std::vector<const c10::StorageImpl*> dispatch_storages_;
  std::vector<const c10::StorageImpl*> read_only_storages_;
  ThreadPool pool_;
  std::shared_ptr<DeviceMemory> memory_ = std::make_shared<DeviceMemory>();
  std::atomic<uint64_t> shuffle_calls_{0};
  std::mutex dispatch_mu_;
  CommDomain* comm_ = nullptr;
  int rank_ = -1;
};

// Device::read_only of `device`; false without one.
inline bool read_only(const Device* device, const at::Tensor& base) { return device != nullptr && device->read_only(base); }

// Device::window_ownership of `device`; Shared without one (ops called outside a dispatch).
inline Ownership window_ownership(const Device* device, const at::Tensor& base) {
  return device ? device->window_ownership(base) : Ownership::Shared;
}

}  // namespace pypto_golden::sim
