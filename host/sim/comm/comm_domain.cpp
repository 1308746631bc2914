#include "sim/comm/comm_domain.h"

#include "sim/comm/env_seconds.h"
#include "sim/comm/in_process_transport.h"
#include "sim/kernel_error.h"
#include "sim/tensor_copy.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <string>

namespace pypto_golden::sim {
namespace {

// The bytes a view with these sizes and (non-negative) strides reaches from its first
// element to the end of its last.
int64_t reach_bytes(at::IntArrayRef sizes, at::IntArrayRef strides, int64_t element_size) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) last += (sizes[d] - 1) * strides[d];
  return (last + 1) * element_size;
}

}  // namespace

std::chrono::milliseconds wait_timeout_from_env() {
  return seconds_from_env("PYPTO_SIM_WAIT_TIMEOUT", std::chrono::milliseconds(5000));
}

CommDomain::CommDomain(std::vector<int> device_ids, std::vector<Device*> devices,
                       std::chrono::milliseconds wait_timeout, std::vector<bool> held)
    : device_ids_(std::move(device_ids)),
      devices_(std::move(devices)),
      wait_timeout_(wait_timeout),
      transport_(std::make_unique<InProcessTransport>(static_cast<int>(devices_.size()), std::move(held))),
      queues_(static_cast<int>(devices_.size())),
      busy_us_(devices_.size(), 0.0),
      launches_(devices_.size(), 0) {}

CommDomain::~CommDomain() {
  transport_->abort();  // a host program that failed mid-way leaves no rank waiting
  queues_.wait_idle();
}

std::string CommDomain::rank_name(int rank) const {
  return "rank " + std::to_string(rank) + " (device " + std::to_string(device_id(rank)) + ")";
}

void CommDomain::begin_dispatch() {
  next_buffer_ = 0;
  std::fill(busy_us_.begin(), busy_us_.end(), 0.0);
  std::fill(launches_.begin(), launches_.end(), 0);
  std::lock_guard<std::mutex> lock(waited_mu_);
  waited_.clear();
}

void CommDomain::note_wait(int rank, int buffer, std::vector<int64_t> offsets, const int32_t* slot) {
  std::lock_guard<std::mutex> lock(waited_mu_);
  for (const auto& w : waited_)
    if (w.slot == slot) return;
  waited_.push_back(WaitedSlot{rank, buffer, std::move(offsets), slot});
}

std::string CommDomain::signal_left_set() {
  if (remote_) return remote_->signal_left_set();
  std::lock_guard<std::mutex> lock(waited_mu_);
  for (const auto& w : waited_) {
    const int32_t value = __atomic_load_n(w.slot, __ATOMIC_ACQUIRE);
    if (value != 0)
      return rank_name(w.rank) + ": the signal at " + python_list_repr(w.offsets) + " (window buffer " +
             std::to_string(w.buffer) + ") holds " + std::to_string(value);
  }
  return "";
}

int CommDomain::allocate(int64_t nbytes) {
  const int b = next_buffer_++;
  if (b == transport_->buffer_count()) {
    if (remote_) remote_->allocate(nbytes);
    return transport_->allocate(nbytes);
  }
  if (transport_->buffer_bytes(b) == nbytes) return b;
  throw KernelError("window buffer " + std::to_string(b) + " is " + std::to_string(nbytes) +
                    " bytes in this launch of the host program but was " + std::to_string(transport_->buffer_bytes(b)) +
                    " bytes in its first; persistent windows (benchmark mode) need the same allocations every launch");
}

at::Tensor CommDomain::window(int buffer, at::IntArrayRef shape, c10::ScalarType dtype) {
  return at::from_blob(transport_->map(0, buffer), shape, at::TensorOptions().dtype(dtype));
}

int CommDomain::buffer_of(const at::Tensor& t, int rank) {
  if (!t.defined() || t.numel() == 0) return -1;
  const auto* p = static_cast<const uint8_t*>(t.const_data_ptr());
  for (int b = 0; b < transport_->buffer_count(); ++b) {
    const uint8_t* base = transport_->map(rank, b);
    if (base != nullptr && p >= base && p < base + transport_->buffer_bytes(b)) return b;
  }
  return -1;
}

std::pair<int, int64_t> CommDomain::window_place(const at::Tensor& t, int rank, const char* noun) {
  const std::pair<int, int64_t> place = place_of(t, rank);
  if (place.first < 0)
    throw KernelError(std::string("the ") + noun + " is not a view of a window buffer (a pld.DistributedTensor)");
  return place;
}

at::Tensor CommDomain::peer_view(const at::Tensor& t, int rank, int peer) {
  return translate(t, window_place(t, rank, "tensor").first, rank, peer);
}

at::Tensor CommDomain::on_rank(const at::Tensor& t, int rank) {
  const int b = buffer_of(t, 0);
  return b < 0 ? t : translate(t, b, 0, rank);
}

at::Tensor CommDomain::translate(const at::Tensor& t, int b, int rank, int peer) {
  const auto* p = static_cast<const uint8_t*>(t.const_data_ptr());
  const int64_t offset = p - transport_->map(rank, b);
  if (offset + reach_bytes(t.sizes(), t.strides(), static_cast<int64_t>(t.element_size())) > transport_->buffer_bytes(b))
    throw KernelError("the view " + python_shape_repr(t.sizes()) + " runs past the end of its window buffer (" +
                      std::to_string(transport_->buffer_bytes(b)) + " bytes)");
  return at::from_blob(transport_->map(peer, b) + offset, t.sizes(), t.strides(), t.options());
}

void write_window(const at::Tensor& dst, const at::Tensor& value, bool add) {
  if (add) dst.add_(value.to(dst.scalar_type()));
  else copy_values(dst, value);  // on the rank's thread: ATen's copy_ would share out torch's pool (the golden's)
}

void CommDomain::launch_remote(int rank, const LaunchStmt& launch, int k, const Frame& frame, bool bound) {
  remote_->launch(rank, launch, k, frame, bound);
}

std::pair<int, int64_t> CommDomain::place_of(const at::Tensor& t, int rank) {
  const int b = buffer_of(t, rank);
  if (b < 0) return {-1, 0};
  return {b, static_cast<const uint8_t*>(t.const_data_ptr()) - transport_->map(rank, b)};
}

at::Tensor CommDomain::view_at(int rank, int buffer, int64_t offset, at::IntArrayRef sizes, at::IntArrayRef strides,
                               c10::ScalarType dtype) {
  if (buffer < 0 || buffer >= transport_->buffer_count())
    throw KernelError("window buffer " + std::to_string(buffer) + " does not exist on " + rank_name(rank));
  if (offset < 0 ||
      offset + reach_bytes(sizes, strides, static_cast<int64_t>(c10::elementSize(dtype))) > transport_->buffer_bytes(buffer))
    throw KernelError("a view of " + std::to_string(sizes.size()) + " axes at byte " + std::to_string(offset) +
                      " runs past the end of window buffer " + std::to_string(buffer) + " (" +
                      std::to_string(transport_->buffer_bytes(buffer)) + " bytes)");
  return at::from_blob(transport_->map(rank, buffer) + offset, sizes, strides, at::TensorOptions().dtype(dtype));
}

void CommDomain::read_peer(const at::Tensor& local, int rank, int peer, const at::Tensor& out) {
  if (links_ == nullptr || transport_->holds(peer)) {
    out.copy_(peer_view(local, rank, peer));
    return;
  }
  const auto [b, offset] = window_place(local, rank, "tensor");
  links_->read(peer, b, offset, local, out);
}

void CommDomain::write_peer(const at::Tensor& local, int rank, int peer, const at::Tensor& value, bool add) {
  if (links_ == nullptr || transport_->holds(peer)) {
    write_window(peer_view(local, rank, peer), value, add);
    return;
  }
  const auto [b, offset] = window_place(local, rank, "tensor");
  links_->write(peer, b, offset, local, value, add);
}

void CommDomain::notify_peer(const at::Tensor& slot, int rank, int peer, int32_t value, NotifyOp op) {
  if (links_ == nullptr || transport_->holds(peer)) {
    transport_->notify(peer_view(slot, rank, peer).data_ptr<int32_t>(), value, op);
    return;
  }
  const auto [b, offset] = window_place(slot, rank, "signal");
  links_->notify(peer, b, offset, value, op);
}

void CommDomain::launch(int rank, std::function<void()> job) {
  queues_.submit(rank, [this, rank, job = std::move(job)] {
    const auto start = std::chrono::steady_clock::now();
    try {
      job();
      busy_us_[static_cast<size_t>(rank)] +=
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(failure_mu_);
        if (!failure_) {
          failure_ = std::current_exception();
          failed_rank_ = rank;
        }
      }
      transport_->abort();
    }
  });
}

void CommDomain::join() {
  queues_.wait_idle();
  std::exception_ptr failure;
  int rank = -1;
  if (remote_) {
    remote_->join(busy_us_, failure, rank);
  } else {
    std::lock_guard<std::mutex> lock(failure_mu_);
    failure = failure_;
    rank = failed_rank_;
  }
  if (!failure) return;
  try {
    std::rethrow_exception(failure);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    throw SimError(std::string(e.what()) + "; on " + rank_name(rank));
  }
}

}  // namespace pypto_golden::sim
