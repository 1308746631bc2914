#include "ranks/rank_store.h"

#include "sim/comm/env_seconds.h"

#include <c10/util/Exception.h>
#include <c10/util/Logging.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/exception.h>

#include <cstdlib>

namespace pypto_golden::ranks {

struct RankStore::Impl {
  StoreAddress address;
  c10::intrusive_ptr<c10d::TCPStore> store;

  RankStoreError error(const std::string& why) const {
    return RankStoreError("the rank store at " + address.text() + ": " + why);
  }
};

std::string c10_reason(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

namespace {

std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

RankStore::RankStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RankStore::~RankStore() = default;

std::unique_ptr<RankStore> RankStore::serve(const std::string& bind_host, uint16_t port) {
  c10d::TCPStoreOptions options;
  options.port = port;
  options.isServer = true;
  options.waitWorkers = false;
  auto impl = std::make_unique<Impl>();
  try {
    impl->store = c10::make_intrusive<c10d::TCPStore>(bind_host, options);
  } catch (const std::exception& e) {
    throw RankStoreError("cannot serve the rank store on " + StoreAddress{bind_host, port}.text() + ": " + c10_reason(e));
  }
  impl->address = StoreAddress{bind_host, impl->store->getPort()};
  return std::unique_ptr<RankStore>(new RankStore(std::move(impl)));
}

std::unique_ptr<RankStore> RankStore::connect(const StoreAddress& address, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = address.port;
  options.isServer = false;
  options.timeout = timeout;
  auto impl = std::make_unique<Impl>();
  impl->address = address;
  try {
    impl->store = c10::make_intrusive<c10d::TCPStore>(address.host, options);
  } catch (const c10d::TimeoutError&) {
    // c10d retries refused connections and unresolvable names until the timeout, and then
    // says only that it timed out.
    throw RankStoreError("cannot reach the rank store at " + address.text() + " within " + sim::seconds_text(timeout) +
                         ": no host process accepted a connection there (is it running, and is the address one "
                         "this machine can reach?)");
  } catch (const std::exception& e) {
    throw RankStoreError("cannot reach the rank store at " + address.text() + ": " + c10_reason(e));
  }
  return std::unique_ptr<RankStore>(new RankStore(std::move(impl)));
}

const StoreAddress& RankStore::address() const { return impl_->address; }

void RankStore::set(const std::string& key, const std::string& value) {
  try {
    impl_->store->set(key, bytes(value));
    impl_->store->check({key});  // answered after the set, on the same connection
  } catch (const std::exception& e) {
    throw impl_->error(c10_reason(e));
  }
}

std::string RankStore::get(const std::string& key) {
  try {
    const std::vector<uint8_t> v = impl_->store->get(key);
    return std::string(v.begin(), v.end());
  } catch (const std::exception& e) {
    throw impl_->error(c10_reason(e));
  }
}

bool RankStore::check(const std::string& key) {
  try {
    return impl_->store->check({key});
  } catch (const std::exception& e) {
    throw impl_->error(c10_reason(e));
  }
}

bool RankStore::wait(const std::string& key, std::chrono::milliseconds timeout) {
  try {
    impl_->store->wait({key}, timeout);
    return true;
  } catch (const c10::DistStoreError& e) {
    // A wait that timed out; a connection that broke is a DistNetworkError.
    if (std::string(e.what_without_backtrace()).rfind("wait timeout", 0) == 0) return false;
    throw impl_->error(c10_reason(e));
  } catch (const std::exception& e) {
    throw impl_->error(c10_reason(e));
  }
}

int64_t RankStore::add(const std::string& key, int64_t delta) {
  try {
    return impl_->store->add(key, delta);
  } catch (const std::exception& e) {
    throw impl_->error(c10_reason(e));
  }
}

void quiet_c10d_logging() {
  const char* asked = std::getenv("TORCH_CPP_LOG_LEVEL");
  if (asked != nullptr && *asked != '\0') return;
  FLAGS_caffe2_log_level = 3;  // fatal only
  c10::UpdateLoggingLevelsFromFlags();
}

}  // namespace pypto_golden::ranks
