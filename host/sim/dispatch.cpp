#include "sim/dispatch.h"

#include "sim/comm/comm_domain.h"
#include "sim/interrupt.h"
#include "sim/kernel_error.h"
#include "sim/strided_view.h"
#include "sim/task_recorder.h"
#include "sim/write_log.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

namespace pypto_golden::sim {

void HostArg::hand_over_out(const at::Tensor& host) {
  tensor = at::empty(host.sizes(), host.options().device(at::kMeta));
  hand_over = true;
}

namespace {

void check_tensor_arg(const ParamInfo& p, const at::Tensor& t) {
  auto dtype = *scalar_type_from_pypto(p.dtype);
  bool shape_ok = static_cast<size_t>(t.dim()) == p.shape.size();
  for (size_t d = 0; shape_ok && d < p.shape.size(); ++d)
    shape_ok = p.shape[d] < 0 || p.shape[d] == t.size(static_cast<int64_t>(d));
  if (!shape_ok || t.scalar_type() != dtype)
    throw ArgumentError("argument '" + p.name + "' must be a " + p.dtype + " tensor of shape " +
                        python_shape_repr(p.shape) + ", got " + pypto_name(t.scalar_type()) +
                        " " + python_shape_repr(t.sizes()));
}

Value scalar_value(const ParamInfo& p, const c10::Scalar& v) {
  auto dtype = *scalar_type_from_pypto(p.dtype);
  if (dtype == at::kBool) return Value::from_bool(v.toBool());
  if (at::isFloatingType(dtype)) return Value::from_float(v.toDouble(), dtype);
  return Value::from_int(v.toLong(), dtype);
}

bool handed_over(const HostArg& arg, const ParamInfo& p) {
  return arg.hand_over && !arg.resident && !arg.result.defined() && p.direction != "In";
}

// Whether the kernel works in argument k's own tensor (HostArg::in_place): only when no
// other argument sees its bytes, which a separate device buffer would have kept apart.
bool works_in_place(const std::vector<HostArg>& args, size_t k, const ParamInfo& p) {
  const HostArg& arg = args[k];
  if (!arg.in_place || arg.resident || arg.result.defined() || p.direction == "In" || !arg.tensor.is_contiguous())
    return false;
  for (size_t j = 0; j < args.size(); ++j)
    if (j != k && args[j].is_tensor && shares_memory(arg.tensor, args[j].tensor)) return false;
  return true;
}

// The storages of the In arguments the program never writes (ParamInfo::may_be_written).
std::vector<const c10::StorageImpl*> read_only_storages(const Function& fn, const std::vector<at::Tensor>& tensors) {
  std::vector<const c10::StorageImpl*> out;
  for (size_t k = 0; k < tensors.size(); ++k)
    if (fn.params[k].is_tensor && fn.params[k].direction == "In" && !fn.params[k].may_be_written &&
        tensors[k].defined() && tensors[k].has_storage())
      out.push_back(tensors[k].storage().unsafeGetStorageImpl());
  return out;
}

// `device` and, with a domain, its ranks' devices.
std::vector<Device*> dispatch_devices(Device& device, CommDomain* domain) {
  std::vector<Device*> out{&device};
  if (domain)
    for (int k = 0; k < domain->world_size(); ++k) out.push_back(&domain->device(k));
  return out;
}

}  // namespace

DispatchReport dispatch(const Program& program, const std::vector<HostArg>& args, Device& device,
                        const DispatchOptions& options) {
  DispatchSession session(program, device);
  return dispatch(session, args, options);
}

DispatchReport dispatch(DispatchSession& session, const std::vector<HostArg>& args, const DispatchOptions& options) {
  const Function& fn = session.program().entry();
  Device& device = session.device();
  if (args.size() != fn.params.size())
    throw ArgumentError("kernel '" + fn.name + "' takes " + std::to_string(fn.params.size()) +
                        " arguments, got " + std::to_string(args.size()));
  session.begin_dispatch();
  CommDomain* domain = session.domain();
  const bool remote = domain != nullptr && domain->remote();
  if (remote && options.recorder != nullptr && options.recorder->windows())
    throw SimError("the task graph, the argument dump and the PMU counts of an L3 program's chip launches are "
                   "recorded only with its ranks in this process: unset PYPTO_SIM_RANKS=process for a run with "
                   "dep_gen, enable_dump_args or a PMU key (rank workers record the swimlane and the scope "
                   "statistics only)");
  Frame frame;
  frame.function = &fn;
  frame.device = &device;
  frame.slots.resize(fn.slot_names.size());
  std::vector<at::Tensor> device_tensors(args.size());
  std::vector<bool> fresh(args.size(), true);  // not a resident buffer an earlier dispatch made
  std::vector<bool> in_place(args.size(), false);
  // The pure Outs the body only writes get their poison after the run, where it did not
  // write. An L3 program's ranks in this process note their writes in the same log; ranks
  // in worker processes write copies this cannot see, so those Outs are filled first.
  WriteLog unwritten;
  std::vector<size_t> tracked;  // the parameters it tracks, in its order
  for (size_t k = 0; k < args.size(); ++k) {
    const ParamInfo& p = fn.params[k];
    if (p.is_tensor != args[k].is_tensor)
      throw ArgumentError("argument '" + p.name + "' must be a " + (p.is_tensor ? "tensor" : "scalar"));
    if (!p.is_tensor) {
      frame.slots[k] = scalar_value(p, args[k].scalar);
      continue;
    }
    check_tensor_arg(p, args[k].tensor);
    fresh[k] = !args[k].resident || !session.resident(k).defined();
    in_place[k] = fresh[k] && works_in_place(args, k, p);
    if (!fresh[k]) {
      device_tensors[k] = session.resident(k);
    } else if (p.direction == "Out") {
      device_tensors[k] = in_place[k] ? args[k].tensor
                                      : device.allocate(args[k].tensor.sizes(), args[k].tensor.scalar_type());
      if (p.write_only && !remote) {
        unwritten.track(device_tensors[k]);
        tracked.push_back(k);
      } else {
        device.poison_output(device_tensors[k]);
      }
    } else if (in_place[k] || (handed_over(args[k], p) && args[k].tensor.is_contiguous())) {
      device_tensors[k] = args[k].tensor;  // the caller gave it up, or receives the result in it
      // Still shared copy-on-write (with the golden's clone, or the benchmark's initial
      // state)? Copy now, on this thread, not at the kernel's first write from a worker.
      (void)device_tensors[k].mutable_data_ptr();
    } else {
      device_tensors[k] = device.upload(args[k].tensor, p.direction == "In" && !p.may_be_written);
    }
    if (fresh[k] && args[k].resident) session.resident(k) = device_tensors[k];
    frame.slots[k] = Value::from_tensor(device_tensors[k]);
  }

  if (remote) {
    if (options.recorder != nullptr) domain->record_remote_tasks();
    std::vector<RankResident> kept;
    for (size_t k = 0; k < args.size(); ++k)
      if (fn.params[k].is_tensor && args[k].resident && !fn.params[k].read_on_host)
        kept.push_back({device_tensors[k].storage().data(), fresh[k]});
    domain->keep_residents(kept);
  }

  std::vector<ElementRuns> gaps;  // per tracked parameter
  {
    InterruptScope interrupt_scope;
    DispatchThreadScope threads(device.pool().size());
    struct Recording {  // the recorder is the devices' (the ranks' too) for this dispatch only
      std::vector<Device*> devices;
      Recording(Device& d, CommDomain* domain, TaskRecorder* r) : devices(dispatch_devices(d, domain)) {
        for (Device* each : devices) each->set_recorder(r);
      }
      ~Recording() {
        for (Device* each : devices) each->set_recorder(nullptr);
      }
    } recording(device, options.recorder ? domain : nullptr, options.recorder);
    // For this dispatch only, on its device and the ranks' in this process: the write log
    // of its write-only Outs, and the In arguments nothing writes (for pl.load's views).
    struct Tracking {
      std::vector<Device*> devices;
      Tracking(Device& d, CommDomain* domain, WriteLog& log, const std::vector<const c10::StorageImpl*>& read_only)
          : devices(dispatch_devices(d, domain)) {
        for (Device* each : devices) {
          each->set_write_log(log.empty() ? nullptr : &log);
          each->set_read_only_storages(read_only);
        }
      }
      ~Tracking() {
        for (Device* each : devices) {
          each->set_write_log(nullptr);
          each->set_read_only_storages({});
        }
      }
    } tracking(device, remote ? nullptr : domain, unwritten, read_only_storages(fn, device_tensors));
    // The arguments' storages live until this function returns, beyond every window of
    // them (the frame's values do not leave it). Not with a recorder, which keeps windows
    // past the run, nor for an L3 program, whose ranks' devices cut their own.
    struct Borrowing {
      Device& device;
      Borrowing(Device& d, const std::vector<at::Tensor>& tensors, bool on) : device(d) {
        std::vector<const c10::StorageImpl*> storages;
        if (on)
          for (const at::Tensor& t : tensors)
            if (t.defined() && t.has_storage()) storages.push_back(t.storage().unsafeGetStorageImpl());
        device.set_dispatch_storages(std::move(storages));
      }
      ~Borrowing() { device.set_dispatch_storages({}); }
    } borrowing(device, device_tensors, domain == nullptr && options.recorder == nullptr);
    try {
      run_block(fn.body, frame);
    } catch (...) {
      device.poison_unwritten(unwritten);  // what a failed run leaves reads as it always did
      throw;
    }
    gaps = device.poison_unwritten(unwritten);
    if (domain) domain->join();  // the frontend ends a host program with a join; any program waits here
    if (remote && options.recorder != nullptr) domain->collect_remote_tasks(*options.recorder);
  }

  DispatchReport report;
  report.outputs.resize(args.size());
  report.unwritten.resize(args.size());
  for (size_t t = 0; t < tracked.size(); ++t) report.unwritten[tracked[t]] = std::move(gaps[t]);
  if (domain) {
    report.rank_busy_us = domain->busy_us();
    report.signal_left_set = domain->signal_left_set();
  }
  for (size_t k = 0; k < args.size(); ++k) {
    if (!fn.params[k].is_tensor || !fresh[k] || in_place[k]) continue;
    if (handed_over(args[k], fn.params[k])) {
      report.outputs[k] = device_tensors[k];
    } else if (fn.params[k].direction != "In") {
      device.download(device_tensors[k], args[k].result.defined() ? args[k].result : args[k].tensor);
    } else if (options.check_inputs && !device.same_bytes(device_tensors[k], args[k].tensor)) {
      report.written_inputs.push_back(fn.params[k].name);
    }
  }
  return report;
}

}  // namespace pypto_golden::sim
