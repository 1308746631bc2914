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
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <stdexcept>
#include <string>
#include <vector>

namespace pypto_golden::ranks {

// A transfer that failed: the peer ended, or the network between them failed.
class GroupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MessageKind : int64_t {
  Stop = 1,      // host -> worker: exit
  Echo = 2,      // host -> worker -> host: the link check; payload: bytes
  Program = 3,   // host -> worker: [text bytes, world size]; payload: the program's JSON, the ranks' device ids
  Alloc = 4,     // host -> worker: [bytes]: the next window buffer
  Launch = 5,    // host -> worker: [launch index, k, launch id, text bytes, bound, no data]; payload: the shipped
                 // frame's JSON. no data: every region is kept by the worker or mapped, and the launch starts
                 // without a Pull and its Data
  Pull = 6,      // worker -> host: [launch id]: send the launch's host regions now
  Data = 7,      // host -> worker: [launch id]; payload: the regions
  Result = 8,    // worker -> host: [launch id, busy ns, changed]; payload: [changed, 2] region indices and run
                 // counts, then per region its ChangedBytes (runs, bytes; or bytes, mask)
  Error = 9,     // worker -> host: [launch id, text bytes]; payload: the message
  Abort = 10,    // host -> worker: another rank failed, stop waiting
  Put = 11,      // worker -> worker: [buffer, offset, axes, dtype, add, value dtype]; payload: geometry, value
  Get = 12,      // worker -> worker: [buffer, offset, axes, dtype, request]; payload: geometry
  GetReply = 13, // worker -> worker: [request]; payload: the region's values
  Notify = 14,   // worker -> worker: [buffer, offset, value, op]
  Check = 15,    // host -> worker, after a dispatch: which waited signals are still set
  CheckReply = 16,  // worker -> host: [text bytes]; payload: signal_left_set()
  HoldClock = 17,   // host -> worker: [+1 | -1]: a rank's launch has not started yet (WindowTransport::hold_clock)
  Started = 18,     // worker -> host: [launch id]: the launch has its data and runs now
  Credit = 19,      // host -> worker: [launch id, ms]: a peer's launch started this much after it (set_wait_credit)
  Forget = 20,      // host -> worker: [key]: after the launches so far, drop the region kept under key
  Return = 21,      // host -> worker: [key]: after the launches so far, send back the region kept under key
  Returned = 22,    // worker -> host: [key, held]; payload (held): the region's bytes
  Record = 23,      // host -> worker: record the tasks of the launches from now on (DFX outputs)
  Tasks = 24,       // host -> worker: stop recording, send the tasks recorded
  TasksReply = 25,  // worker -> host: [text bytes]; payload: recorded_tasks_text()
};

struct MessageHeader {
  MessageKind kind = MessageKind::Stop;
  std::array<int64_t, 7> args{};
};

// A text (a program, a frame, a message) as a payload; GlooGroup::receive_text() reads one.
at::Tensor text_payload(const std::string& text);

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
  // Queues a message for this process's sending thread to `peer` and returns: a thread that
  // receives must never wait on a send (two such threads sending to each other would each
  // wait for the other to receive). Messages to one peer go out in the order they were
  // posted; each peer has its own thread, as a Gloo send waits for its receiver to take it
  // and a peer busy receiving a large payload must not hold up the messages to the others.
  // GroupError when an earlier message (to any peer) could not be sent.
  void post(int peer, const MessageHeader& header, std::vector<at::Tensor> payload = {});
  // post(), then waits until the message is sent (so the payload may change afterwards),
  // checking for an interrupt meanwhile.
  void post_and_wait(int peer, const MessageHeader& header, std::vector<at::Tensor> payload);
  // post(); what it returns becomes ready once the message is sent: wait_sent() waits for it.
  std::future<void> post_tracked(int peer, const MessageHeader& header, std::vector<at::Tensor> payload);
  // Waits for a post_tracked() message to be sent, checking for an interrupt meanwhile;
  // GroupError when it could not be.
  void wait_sent(std::future<void>& sent);
  // The next message's header from any process; `source` is set to the sender. GroupError
  // after stop_receiving().
  MessageHeader receive_header(int& source);
  // Ends the receive_header() under way (another thread's) and every later one.
  void stop_receiving();
  // The next payload tensor from `source` into `into` (contiguous, of the sent size).
  void receive_payload(int source, at::Tensor into);
  // The next payload from `source`, a text of `bytes` bytes (text_payload()).
  std::string receive_text(int source, int64_t bytes);

  struct Impl;

 private:
  GlooGroup(std::unique_ptr<Impl> impl, int rank, int size);
  std::unique_ptr<Impl> impl_;
  int rank_;
  int size_;
  std::vector<std::unique_ptr<std::mutex>> send_locks_;  // per destination

  struct Posted {
    int peer;
    MessageHeader header;
    std::vector<at::Tensor> payload;
    std::shared_ptr<std::promise<void>> sent;  // post_and_wait's
  };
  struct Outbox {  // the messages posted to one peer, and the thread that sends them
    std::deque<Posted> queue;
    std::condition_variable posted;
    std::thread sender;  // started by the first post to the peer
  };
  void enqueue(Posted message);  // post()'s: GroupError once a send has failed
  void send_posted(Outbox& box);
  std::mutex post_mu_;  // guards the outboxes, stopping_ and send_failure_
  std::vector<std::unique_ptr<Outbox>> outboxes_;  // per destination
  bool stopping_ = false;
  std::string send_failure_;
  std::mutex receive_mu_;
  bool receive_stopped_ = false;
  void* pending_receive_ = nullptr;  // the c10d::Work of the receive under way
};

// Releases the GIL for its scope when this thread holds it (the rank code runs both under
// the interpreter's thread and on its own threads).
class WithoutGil {
 public:
  WithoutGil();
  ~WithoutGil();
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;

 private:
  void* state_ = nullptr;
};

}  // namespace pypto_golden::ranks
