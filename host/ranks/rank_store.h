// The rank store: a key-value store over TCP (c10d's TCPStore, which torch.distributed's
// rendezvous uses) that the host process serves and its workers connect to. Rendezvous
// and control messages go through it. Its c10d type stays in rank_store.cpp, away from
// the headers most files include.
#pragma once

#include "ranks/store_address.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace pypto_golden::ranks {

// A store that cannot be reached or answered wrongly: "the rank store at HOST:PORT: why".
class RankStoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankStore {
 public:
  // Serves a store on `bind_host`:`port` (port 0: a free port, see address()).
  static std::unique_ptr<RankStore> serve(const std::string& bind_host, uint16_t port);
  // Connects to a served store, retrying until `timeout`; RankStoreError "cannot reach the
  // rank store at HOST:PORT within N s" after it.
  static std::unique_ptr<RankStore> connect(const StoreAddress& address, std::chrono::milliseconds timeout);
  ~RankStore();
  RankStore(const RankStore&) = delete;
  RankStore& operator=(const RankStore&) = delete;

  const StoreAddress& address() const;
  // Sets `key` and returns once the store has it (c10d's set alone does not wait for it:
  // a process that ends right after could lose it).
  void set(const std::string& key, const std::string& value);
  // The value of a key that is set (check() first, or wait()).
  std::string get(const std::string& key);
  bool check(const std::string& key);
  // Blocks until `key` is set (true) or `timeout` passes (false).
  bool wait(const std::string& key, std::chrono::milliseconds timeout);
  // Adds `delta` to the integer under `key` (0 when unset); returns the new value.
  int64_t add(const std::string& key, int64_t delta);

  struct Impl;

 private:
  explicit RankStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What a c10 / c10d exception says, without the stack of torch's frames its what() ends in.
std::string c10_reason(const std::exception& e);

// c10d logs every retry of a connection and every timed-out wait to stderr. The rank code
// reports what went wrong itself, so those lines are off unless the user asked for them
// with TORCH_CPP_LOG_LEVEL.
void quiet_c10d_logging();

}  // namespace pypto_golden::ranks
