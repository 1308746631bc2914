// The Gloo process group of a host process and its rank workers, and the messages they
// send each other over it. Ranks 0 .. N-1 are the workers (rank r simulates the L3
// program's rank r), rank N is the host. torch.distributed's Python binding makes the group
// (the torch wheel ships no gloo headers to make it from C++); everything after goes
// through c10d's C++ Backend.
//
// A message is a header (a kind and seven integers) on one tag, received from any process,
// then its payload tensors, if any, from the same sender on a second tag. Gloo keeps the
// order of transfers between two processes on one tag, and one lock per destination keeps a
// message's header and payload together when several threads send to one process, so a
// process applies the messages of one sender in the order they were sent.
#pragma once

#include "ranks/store_address.h"

#include <ATen/core/Tensor.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace pypto_golden::ranks {

// A transfer that failed: the peer ended, or the network between them failed.
class GroupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MessageKind : int64_t { Stop = 1, Echo = 2 };

struct MessageHeader {
  MessageKind kind = MessageKind::Stop;
  std::array<int64_t, 7> args{};
};

class GlooGroup {
 public:
  // Joins the group of `size` processes through the rank store at `store`, as `rank`. Its
  // traffic goes over GLOO_SOCKET_IFNAME's interface when that is set, else over loopback
  // when `this_machine_only`, else over the address this machine's name resolves to (as
  // torch.distributed's default). Needs an initialized interpreter and the GIL; GroupError
  // when the group cannot form within `timeout` (a process that never joins).
  static std::unique_ptr<GlooGroup> join(const StoreAddress& store, int rank, int size,
                                         std::chrono::milliseconds timeout, bool this_machine_only);
  ~GlooGroup();  // takes the GIL to drop the Python objects
  GlooGroup(const GlooGroup&) = delete;
  GlooGroup& operator=(const GlooGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Sends a message: its header, then each payload tensor (contiguous CPU tensors).
  void send(int peer, const MessageHeader& header, const std::vector<at::Tensor>& payload = {});
  // The next message's header from any process; `source` is set to the sender.
  MessageHeader receive_header(int& source);
  // The next payload tensor from `source` into `into` (contiguous, of the sent size).
  void receive_payload(int source, at::Tensor into);

  struct Impl;

 private:
  GlooGroup(std::unique_ptr<Impl> impl, int rank, int size);
  std::unique_ptr<Impl> impl_;
  int rank_;
  int size_;
  std::vector<std::unique_ptr<std::mutex>> send_locks_;  // per destination
};

}  // namespace pypto_golden::ranks
