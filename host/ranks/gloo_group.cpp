#include "ranks/gloo_group.h"

#include "ranks/build_identity.h"
#include "ranks/rank_store.h"
#include "sim/interrupt.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <pybind11/chrono.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/utils/pybind.h>

#include <cstdlib>
#include <cstring>

namespace py = pybind11;

namespace pypto_golden::ranks {

struct GlooGroup::Impl {
  py::object python_group;  // keeps the Python object, and with it the backend, alive
  c10::intrusive_ptr<c10d::Backend> backend;
};

namespace {

constexpr int kHeaderTag = 1;
constexpr int kPayloadTag = 2;
constexpr int kHeaderWords = 8;

// Waits for a transfer; GroupError naming what it was when it fails.
void finish(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what) {
  try {
    work->wait();
  } catch (const std::exception& e) {
    throw GroupError(what + " failed: " + c10_reason(e));
  }
}

}  // namespace

at::Tensor text_payload(const std::string& text) {
  at::Tensor t = at::empty({static_cast<int64_t>(text.size())}, at::kByte);
  std::memcpy(t.data_ptr<uint8_t>(), text.data(), text.size());
  return t;
}

WithoutGil::WithoutGil() {
  if (Py_IsInitialized() && PyGILState_Check()) state_ = PyEval_SaveThread();
}

WithoutGil::~WithoutGil() {
  if (state_ != nullptr) PyEval_RestoreThread(static_cast<PyThreadState*>(state_));
}

GlooGroup::GlooGroup(std::unique_ptr<Impl> impl, int rank, int size) : impl_(std::move(impl)), rank_(rank), size_(size) {
  for (int r = 0; r < size; ++r) {
    send_locks_.push_back(std::make_unique<std::mutex>());
    outboxes_.push_back(std::make_unique<Outbox>());
  }
}

GlooGroup::~GlooGroup() {
  {
    std::lock_guard<std::mutex> lock(post_mu_);
    stopping_ = true;
    for (auto& box : outboxes_) box->posted.notify_all();
  }
  {
    WithoutGil no_gil;
    for (auto& box : outboxes_)
      if (box->sender.joinable()) box->sender.join();
  }
  py::gil_scoped_acquire gil;
  impl_->backend.reset();
  impl_->python_group = py::object();
}

void GlooGroup::enqueue(Posted message) {
  std::lock_guard<std::mutex> lock(post_mu_);
  if (!send_failure_.empty()) throw GroupError(send_failure_);
  Outbox& box = *outboxes_.at(static_cast<size_t>(message.peer));
  box.queue.push_back(std::move(message));
  if (!box.sender.joinable()) box.sender = std::thread([this, &box] { send_posted(box); });
  box.posted.notify_one();
}

void GlooGroup::post(int peer, const MessageHeader& header, std::vector<at::Tensor> payload) {
  enqueue(Posted{peer, header, std::move(payload), nullptr});
}

void GlooGroup::post_and_wait(int peer, const MessageHeader& header, std::vector<at::Tensor> payload) {
  std::future<void> sent = post_tracked(peer, header, std::move(payload));
  wait_sent(sent);
}

std::future<void> GlooGroup::post_tracked(int peer, const MessageHeader& header, std::vector<at::Tensor> payload) {
  auto sent = std::make_shared<std::promise<void>>();
  std::future<void> done = sent->get_future();
  enqueue(Posted{peer, header, std::move(payload), std::move(sent)});
  return done;
}

void GlooGroup::wait_sent(std::future<void>& sent) {
  while (sent.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) sim::check_interrupt();
  try {
    sent.get();
  } catch (const std::future_error&) {  // dropped unsent: an earlier message failed
    std::lock_guard<std::mutex> lock(post_mu_);
    throw GroupError(send_failure_);
  }
}

void GlooGroup::send_posted(Outbox& box) {
  for (;;) {
    Posted next;
    {
      std::unique_lock<std::mutex> lock(post_mu_);
      box.posted.wait(lock, [&] { return stopping_ || !box.queue.empty(); });
      if (box.queue.empty()) return;  // stopping, everything sent
      next = std::move(box.queue.front());
      box.queue.pop_front();
    }
    try {
      send(next.peer, next.header, next.payload);
      if (next.sent) next.sent->set_value();
    } catch (const GroupError& e) {
      if (next.sent) next.sent->set_exception(std::current_exception());
      // The group can send nothing more: what waits for any peer is dropped (its
      // post_and_wait() fails with this), and later posts fail.
      std::lock_guard<std::mutex> lock(post_mu_);
      send_failure_ = e.what();
      for (auto& other : outboxes_) other->queue.clear();
    }
  }
}

std::unique_ptr<GlooGroup> GlooGroup::join(const StoreAddress& store, int rank, int size,
                                           std::chrono::milliseconds timeout, bool this_machine_only) {
  py::gil_scoped_acquire gil;
  auto impl = std::make_unique<Impl>();
  try {
    py::module_ dist = py::module_::import("torch.distributed");
    py::object client = dist.attr("TCPStore")(store.host, store.port, py::arg("is_master") = false,
                                               py::arg("timeout") = timeout);
    py::object prefixed = dist.attr("PrefixStore")("pypto-golden/gloo", client);
    // The group's own timeout bounds every transfer; a worker idles in a receive between
    // the host's messages, so it is long. A peer that ends is noticed elsewhere: the host
    // watches its workers, a worker its host's store.
    py::object gloo = dist.attr("ProcessGroupGloo");
    py::object options = gloo.attr("_Options")();
    options.attr("_timeout") = std::chrono::duration<double>(std::chrono::hours(24));
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    py::list devices;
    if (ifname != nullptr && *ifname != '\0') devices.append(gloo.attr("create_device")(py::arg("interface") = ifname));
    else if (this_machine_only) devices.append(gloo.attr("create_device")(py::arg("hostname") = "127.0.0.1"));
    else {
      // The address this process reaches the store from is one its peers reach it at too,
      // where the machine's name may resolve to a loopback alias (127.0.1.1 on Debian).
      const std::string toward = local_address_toward(store);
      devices.append(gloo.attr("create_device")(py::arg("hostname") = toward.empty() ? this_host_name() : toward));
    }
    options.attr("_devices") = devices;
    impl->python_group = gloo(prefixed, rank, size, options);
    impl->backend = impl->python_group.cast<c10::intrusive_ptr<c10d::Backend>>();
  } catch (const py::error_already_set& e) {
    throw GroupError("cannot form the Gloo group of " + std::to_string(size) + " processes through the rank store at " +
                     store.text() + ": " + e.what());
  } catch (const py::cast_error& e) {
    throw GroupError(std::string("torch.distributed's ProcessGroupGloo is not a c10d Backend this build can use: ") +
                     e.what());
  }
  return std::unique_ptr<GlooGroup>(new GlooGroup(std::move(impl), rank, size));
}

void GlooGroup::send(int peer, const MessageHeader& header, const std::vector<at::Tensor>& payload) {
  at::Tensor words = at::empty({kHeaderWords}, at::kLong);
  int64_t* w = words.data_ptr<int64_t>();
  w[0] = static_cast<int64_t>(header.kind);
  for (size_t k = 0; k < header.args.size(); ++k) w[k + 1] = header.args[k];
  std::lock_guard<std::mutex> lock(*send_locks_.at(static_cast<size_t>(peer)));
  const std::string to = "a message from rank " + std::to_string(rank_) + " to rank " + std::to_string(peer);
  try {
    std::vector<at::Tensor> h = {words};
    finish(impl_->backend->send(h, peer, kHeaderTag), to);
    for (const at::Tensor& t : payload) {
      std::vector<at::Tensor> p = {t};
      finish(impl_->backend->send(p, peer, kPayloadTag), to);
    }
  } catch (const GroupError&) {
    throw;
  } catch (const std::exception& e) {
    throw GroupError(to + " failed: " + c10_reason(e));
  }
}

MessageHeader GlooGroup::receive_header(int& source) {
  at::Tensor words = at::empty({kHeaderWords}, at::kLong);
  std::vector<at::Tensor> h = {words};
  const std::string what = "rank " + std::to_string(rank_) + " receiving a message";
  c10::intrusive_ptr<c10d::Work> work;
  try {
    std::lock_guard<std::mutex> lock(receive_mu_);
    if (receive_stopped_) throw GroupError(what + ": stopped");
    work = impl_->backend->recvAnysource(h, kHeaderTag);
    pending_receive_ = work.get();
  } catch (const GroupError&) {
    throw;
  } catch (const std::exception& e) {
    throw GroupError(what + " failed: " + c10_reason(e));
  }
  bool received = false;
  std::string failure;
  try {
    received = work->wait();
  } catch (const std::exception& e) {
    failure = c10_reason(e);
  }
  {
    std::lock_guard<std::mutex> lock(receive_mu_);
    pending_receive_ = nullptr;
    if (receive_stopped_) throw GroupError(what + ": stopped");
  }
  if (!failure.empty()) throw GroupError(what + " failed: " + failure);
  if (!received) throw GroupError(what + ": aborted");
  source = work->sourceRank();
  const int64_t* w = words.data_ptr<int64_t>();
  MessageHeader header;
  header.kind = static_cast<MessageKind>(w[0]);
  for (size_t k = 0; k < header.args.size(); ++k) header.args[k] = w[k + 1];
  return header;
}

void GlooGroup::stop_receiving() {
  std::lock_guard<std::mutex> lock(receive_mu_);
  receive_stopped_ = true;
  if (pending_receive_ != nullptr) static_cast<c10d::Work*>(pending_receive_)->abort();
}

std::string GlooGroup::receive_text(int source, int64_t bytes) {
  at::Tensor text = at::empty({bytes}, at::kByte);
  receive_payload(source, text);
  return std::string(reinterpret_cast<const char*>(text.data_ptr<uint8_t>()), static_cast<size_t>(bytes));
}

void GlooGroup::receive_payload(int source, at::Tensor into) {
  std::vector<at::Tensor> p = {std::move(into)};
  const std::string what = "rank " + std::to_string(rank_) + " receiving data from rank " + std::to_string(source);
  try {
    finish(impl_->backend->recv(p, source, kPayloadTag), what);
  } catch (const GroupError&) {
    throw;
  } catch (const std::exception& e) {
    throw GroupError(what + " failed: " + c10_reason(e));
  }
}

}  // namespace pypto_golden::ranks
