// The distributed DSL's ops (pld.*): window buffers and their views in the host program;
// one-sided loads, stores and puts between the ranks' windows, and signals, in the chip
// programs it launches. Every remote access is checked against the window it reaches.
#include "sim/comm/comm_domain.h"
#include "sim/device.h"
#include "sim/interrupt.h"
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <string>

namespace pypto_golden::sim {
namespace {

// The DSL spelling of an op, for messages.
std::string spelled(const OpArgs& a) {
  const std::string op = a.op;
  if (op == "window_alloc") return "pld.alloc_window_buffer";
  if (op == "window_view") return "pld.window";
  if (op == "remote_load") return "pld.tile.remote_load";
  if (op == "remote_store") return "pld.remote_store";
  if (op == "remote_put") return "pld.tensor.put";
  if (op == "remote_get") return "pld.tensor.get";
  if (op == "signal_notify") return "pld.system.notify";
  return "pld.system.wait";
}

[[noreturn]] void fail(const OpArgs& a, const std::string& detail) { throw KernelError(spelled(a) + ": " + detail); }

CommDomain& domain_of(const OpArgs& a) {
  if (a.device == nullptr || a.device->comm() == nullptr)
    fail(a, "runs only in an L3 program: a @pl.jit.host program and the chip programs it launches with "
            "chip(..., device=r)");
  return *a.device->comm();
}

int peer_of(const OpArgs& a, const CommDomain& d, size_t i, const char* name) {
  const int64_t peer = a.as_int(a.required(i, name), name);
  if (peer < 0 || peer >= d.world_size())
    fail(a, std::string(name) + " " + std::to_string(peer) + " is not a rank: the program runs on " +
                std::to_string(d.world_size()) + " ranks (0.." + std::to_string(d.world_size() - 1) + ")");
  return static_cast<int>(peer);
}

// The window tensor an op reaches: a view of this rank's window.
const at::Tensor& window_arg(const OpArgs& a, CommDomain& d, size_t i, const char* name) {
  const at::Tensor& t = a.as_tensor(a.required(i, name), name).tensor;
  if (d.buffer_of(t, a.device->rank()) < 0)
    fail(a, std::string(name) + " must be a pld.DistributedTensor (a pld.window view the host program passed in), "
                                 "got a tensor that lies in no window buffer");
  return t;
}

// t[offsets : offsets + shape], which must lie inside t; `what` names t in the message.
at::Tensor region(const OpArgs& a, const at::Tensor& t, const std::vector<int64_t>& offsets,
                  const std::vector<int64_t>& shape, const std::string& what) {
  if (offsets.size() != static_cast<size_t>(t.dim()) || shape.size() != static_cast<size_t>(t.dim()))
    fail(a, what + " has rank " + std::to_string(t.dim()) + " (shape " + python_shape_repr(t.sizes()) +
                ") but the region has offsets " + python_list_repr(offsets) + " and shape " + python_list_repr(shape));
  at::Tensor v = t;
  for (size_t k = 0; k < offsets.size(); ++k) {
    const int64_t extent = t.size(static_cast<int64_t>(k));
    if (offsets[k] < 0 || shape[k] < 0 || offsets[k] + shape[k] > extent)
      fail(a, "the region at offsets " + python_list_repr(offsets) + " of shape " + python_list_repr(shape) +
                  " runs outside " + what + " (shape " + python_shape_repr(t.sizes()) + ") on axis " +
                  std::to_string(k));
    v = v.narrow(static_cast<int64_t>(k), offsets[k], shape[k]);
  }
  return v;
}

std::vector<int64_t> zeros_like_rank(const at::Tensor& t) { return std::vector<int64_t>(static_cast<size_t>(t.dim()), 0); }

std::vector<int64_t> offsets_or_zeros(const OpArgs& a, size_t i, const char* name, const at::Tensor& t) {
  const Value* v = a.optional(i, name);
  return v ? a.as_int_list(*v, name) : zeros_like_rank(t);
}

// A put's / get's shape: the `shape` argument, else what of src lies past src_offsets (when
// they do not fit src, src's shape: region() then says what is wrong).
std::vector<int64_t> transfer_shape(const OpArgs& a, const at::Tensor& src, const std::vector<int64_t>& src_offsets) {
  if (const Value* s = a.optional(5, "shape")) return a.as_int_list(*s, "shape");
  std::vector<int64_t> shape(src.sizes().begin(), src.sizes().end());
  if (src_offsets.size() == shape.size())
    for (size_t k = 0; k < shape.size(); ++k) shape[k] -= src_offsets[k];
  return shape;
}

std::string peer_text(const CommDomain& d, int rank, int peer) {
  return "from " + d.rank_name(rank) + " to " + d.rank_name(peer);
}

bool atomic_add(const OpArgs& a) {
  const Value* v = a.option("atomic");
  if (v == nullptr) return false;
  const std::string m = a.as_enum_member(*v, "AtomicType");
  if (m == "Add") return true;
  if (m == "None_" || m == "None") return false;
  fail(a, "atomic must be pld.AtomicType.None_ or pld.AtomicType.Add, got " + m);
}

// The int32 signal slot signal[offsets].
at::Tensor signal_slot(const OpArgs& a, const at::Tensor& signal, const Value& offsets_value) {
  if (signal.scalar_type() != at::kInt)
    fail(a, "the signal must be an INT32 pld.DistributedTensor, got " + pypto_name(signal.scalar_type()));
  const std::vector<int64_t> offsets = a.as_int_list(offsets_value, "offsets");
  return region(a, signal, offsets, std::vector<int64_t>(offsets.size(), 1), "the signal");
}

Value window_alloc(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const Value& size = a.required(0, "size");
  int64_t nbytes = 0;
  if (size.is_scalar()) {
    nbytes = a.as_int(size, "size");
  } else {
    const Value* dtype = a.option("dtype");
    if (dtype == nullptr) fail(a, "a shape needs dtype= (or pass the size in bytes)");
    nbytes = at::elementSize(a.as_dtype(*dtype, "dtype"));
    for (int64_t e : a.as_int_list(size, "size")) nbytes *= e;
  }
  if (nbytes <= 0) fail(a, "the buffer must have a positive size, got " + std::to_string(nbytes) + " bytes");
  return Value::from_int(d.allocate(nbytes));
}

Value window_view(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int64_t buffer = a.as_int(a.required(0, "buf"), "buf");
  if (buffer < 0 || buffer >= d.transport().buffer_count())
    fail(a, "buf must be a buffer from pld.alloc_window_buffer");
  const std::vector<int64_t> shape = a.as_int_list(a.required(1, "shape"), "shape");
  const Value* dtype_value = a.option("dtype");
  if (dtype_value == nullptr) fail(a, "missing dtype=");
  const c10::ScalarType dtype = a.as_dtype(*dtype_value, "dtype");
  int64_t need = at::elementSize(dtype);
  for (int64_t e : shape) {
    if (e <= 0) fail(a, "the shape " + python_list_repr(shape) + " must have positive extents");
    need *= e;
  }
  const int64_t have = d.transport().buffer_bytes(static_cast<int>(buffer));
  if (need > have)
    fail(a, "a " + python_list_repr(shape) + " " + pypto_name(dtype) + " view needs " + std::to_string(need) +
                " bytes but window buffer " + std::to_string(buffer) + " holds " + std::to_string(have));
  return Value::from_tensor(d.window(static_cast<int>(buffer), shape, dtype));
}

Value remote_load(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int rank = a.device->rank();
  const at::Tensor& target = window_arg(a, d, 0, "target");
  const int peer = peer_of(a, d, 1, "peer");
  const std::vector<int64_t> offsets = a.as_int_list(a.required(2, "offsets"), "offsets");
  const std::vector<int64_t> shape = a.as_int_list(a.required(3, "shape"), "shape");
  const at::Tensor local = region(a, target, offsets, shape, "the window (" + peer_text(d, rank, peer) + ")");
  at::Tensor out = a.device->allocate(shape, target.scalar_type());
  d.read_peer(local, rank, peer, out);
  if (const Value* valid = a.optional(4, "valid_shape")) return Value::from_tensor(out, a.as_int_list(*valid, "valid_shape"));
  return Value::from_tensor(out);
}

Value remote_store(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int rank = a.device->rank();
  const Value& src = a.tensor(0, "src");
  const at::Tensor& target = window_arg(a, d, 1, "target");
  const int peer = peer_of(a, d, 2, "peer");
  const std::vector<int64_t> offsets = a.as_int_list(a.required(3, "offsets"), "offsets");
  const at::Tensor value = src.valid_view();
  std::vector<int64_t> shape(value.sizes().begin(), value.sizes().end());
  const at::Tensor local = region(a, target, offsets, shape, "the window (" + peer_text(d, rank, peer) + ")");
  d.write_peer(local, rank, peer, value, atomic_add(a));
  return Value::none();
}

Value remote_put(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int rank = a.device->rank();
  const at::Tensor& dst = window_arg(a, d, 0, "dst");
  const int peer = peer_of(a, d, 1, "peer");
  const at::Tensor src = a.tensor(2, "src").valid_view();
  const std::vector<int64_t> src_offsets = offsets_or_zeros(a, 4, "src_offsets", src);
  const std::vector<int64_t> shape = transfer_shape(a, src, src_offsets);
  const at::Tensor from = region(a, src, src_offsets, shape, "src");
  const at::Tensor to = region(a, dst, offsets_or_zeros(a, 3, "dst_offsets", dst), shape,
                               "the window dst (" + peer_text(d, rank, peer) + ")");
  d.write_peer(to, rank, peer, from, atomic_add(a));
  return Value::none();
}

Value remote_get(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int rank = a.device->rank();
  const at::Tensor& dst = a.tensor(0, "dst").tensor;
  const int peer = peer_of(a, d, 1, "peer");
  const at::Tensor& src = window_arg(a, d, 2, "src");
  const std::vector<int64_t> src_offsets = offsets_or_zeros(a, 4, "src_offsets", src);
  const std::vector<int64_t> shape = transfer_shape(a, src, src_offsets);
  const at::Tensor from = region(a, src, src_offsets, shape, "the window src (" + peer_text(d, rank, peer) + ")");
  d.read_peer(from, rank, peer, region(a, dst, offsets_or_zeros(a, 3, "dst_offsets", dst), shape, "dst"));
  return Value::none();
}

Value signal_notify(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int rank = a.device->rank();
  const at::Tensor& target = window_arg(a, d, 0, "target");
  const int peer = peer_of(a, d, 1, "peer");
  const at::Tensor slot = signal_slot(a, target, a.required(2, "offsets"));
  const int64_t value = a.as_int(a.required(3, "value"), "value");
  NotifyOp op = NotifyOp::AtomicAdd;
  if (const Value* v = a.option("op")) {
    const std::string m = a.as_enum_member(*v, "NotifyOp");
    if (m == "Set") op = NotifyOp::Set;
    else if (m != "AtomicAdd") fail(a, "op must be pld.NotifyOp.AtomicAdd or pld.NotifyOp.Set, got " + m);
  }
  d.notify_peer(slot, rank, peer, static_cast<int32_t>(value), op);
  return Value::none();
}

Value signal_wait(const OpArgs& a) {
  CommDomain& d = domain_of(a);
  const int rank = a.device->rank();
  const at::Tensor& signal = window_arg(a, d, 0, "signal");
  const Value& offsets = a.required(1, "offsets");
  const at::Tensor slot = signal_slot(a, signal, offsets);
  const int64_t expected = a.as_int(a.required(2, "expected"), "expected");
  WaitCmp cmp = WaitCmp::Eq;
  if (const Value* v = a.option("cmp")) {
    const std::string m = a.as_enum_member(*v, "WaitCmp");
    if (m == "Ge") cmp = WaitCmp::Ge;
    else if (m != "Eq") fail(a, "cmp must be pld.WaitCmp.Eq or pld.WaitCmp.Ge, got " + m);
  }
  const WaitResult r = d.transport().wait(slot.data_ptr<int32_t>(), static_cast<int32_t>(expected), cmp, d.wait_timeout());
  if (r.satisfied) {
    d.note_wait(rank, d.buffer_of(signal, rank), a.as_int_list(offsets, "offsets"), slot.data_ptr<int32_t>());
    return Value::none();
  }
  check_interrupt();
  if (r.aborted) fail(a, "stopped waiting: another rank failed");
  const double seconds = static_cast<double>(d.wait_timeout().count()) / 1000.0;
  fail(a, "never satisfied: the signal at " + python_list_repr(a.as_int_list(offsets, "offsets")) +
              " (window buffer " + std::to_string(d.buffer_of(signal, rank)) + ") is " + std::to_string(r.found) +
              ", expected " + (cmp == WaitCmp::Ge ? ">= " : "== ") + std::to_string(expected) + " after " +
              python_float_repr(seconds) + " s (PYPTO_SIM_WAIT_TIMEOUT); check the peer, offsets and value of the "
              "pld.system.notify calls meant for it");
}

}  // namespace

void register_distributed_ops(OpTable& t) {
  // Their windows are a rank's communication buffers, reached across ranks: not recorded
  // in the task graph (windowed_args: all).
  constexpr uint32_t kAll = ~0u;
  t.add(OpDef{"window_alloc", 1, 1, {"dtype", "name"}, &ops::guarded<window_alloc>, nullptr, -1, kAll});
  t.add(OpDef{"window_view", 2, 2, {"dtype"}, &ops::guarded<window_view>, nullptr, -1, kAll});
  t.add(OpDef{"remote_load", 4, 5, {}, &ops::guarded<remote_load>, nullptr, -1, kAll});
  t.add(OpDef{"remote_store", 4, 4, {"atomic"}, &ops::guarded<remote_store>, nullptr, 1, kAll});
  t.add(OpDef{"remote_put", 3, 6, {"atomic", "chunk_rows", "chunk_cols", "pipeline"}, &ops::guarded<remote_put>, nullptr, 0, kAll});
  t.add(OpDef{"remote_get", 3, 6, {"chunk_rows", "chunk_cols", "pipeline"}, &ops::guarded<remote_get>, nullptr, 0, kAll});
  t.add(OpDef{"signal_notify", 4, 4, {"op"}, &ops::guarded<signal_notify>, nullptr, 0, kAll});
  t.add(OpDef{"signal_wait", 3, 3, {"cmp"}, &ops::guarded<signal_wait>, nullptr, -1, kAll});
}

}  // namespace pypto_golden::sim
