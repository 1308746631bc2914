// The ranks' transport and launch queues: zeroed per-rank buffers, a notify that wakes a
// wait on another thread, a wait that times out with the value it found, abort() releasing
// waiters, a rank's jobs running in order while ranks run side by side, and a domain's
// windows persisting across dispatches.
#include "sim/comm/comm_domain.h"
#include "sim/comm/in_process_transport.h"
#include "sim/comm/rank_queues.h"
#include "sim/device.h"
#include "sim/kernel_error.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using pypto_golden::sim::InProcessTransport;
using pypto_golden::sim::NotifyOp;
using pypto_golden::sim::RankQueues;
using pypto_golden::sim::WaitCmp;

TEST_CASE("every rank holds its own zeroed copy of a buffer") {
  InProcessTransport t(2);
  const int b = t.allocate(16);
  CHECK(t.buffer_count() == 1);
  CHECK(t.buffer_bytes(b) == 16);
  CHECK(t.map(0, b) != t.map(1, b));
  std::vector<uint8_t> zero(16, 0);
  CHECK(std::memcmp(t.map(1, b), zero.data(), 16) == 0);
  t.map(0, b)[3] = 7;
  CHECK(t.map(1, b)[3] == 0);
}

TEST_CASE("a notify from another thread satisfies a wait; Set and AtomicAdd") {
  InProcessTransport t(2);
  auto* slot = reinterpret_cast<int32_t*>(t.map(1, t.allocate(4)));
  std::thread peer([&] {
    std::this_thread::sleep_for(20ms);
    t.notify(slot, 1, NotifyOp::AtomicAdd);
    t.notify(slot, 1, NotifyOp::AtomicAdd);
  });
  const auto r = t.wait(slot, 2, WaitCmp::Ge, 5000ms);
  peer.join();
  CHECK(r.satisfied);
  CHECK(r.found == 2);
  t.notify(slot, 9, NotifyOp::Set);
  CHECK(t.wait(slot, 9, WaitCmp::Eq, 10ms).satisfied);
}

TEST_CASE("a held clock stops waits' timeouts: a notify after a long hold still satisfies a short wait") {
  InProcessTransport t(2);
  auto* slot = reinterpret_cast<int32_t*>(t.map(1, t.allocate(4)));
  t.hold_clock(1);  // a peer's launch data is on its way
  std::thread peer([&] {
    std::this_thread::sleep_for(300ms);
    t.notify(slot, 1, NotifyOp::AtomicAdd);
    std::this_thread::sleep_for(50ms);
    t.hold_clock(-1);
  });
  CHECK(t.wait(slot, 1, WaitCmp::Ge, 100ms).satisfied);
  peer.join();
  // Let go, the clock runs again: a wait that is never satisfied ends after its timeout,
  // counted from the release.
  t.hold_clock(1);
  std::thread release([&] {
    std::this_thread::sleep_for(200ms);
    t.hold_clock(-1);
  });
  const auto start = std::chrono::steady_clock::now();
  const auto r = t.wait(slot, 2, WaitCmp::Ge, 100ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  release.join();
  CHECK_FALSE(r.satisfied);
  CHECK(r.found == 1);
  CHECK(waited >= 300ms);
}

TEST_CASE("a wait credit lengthens waits by a late peer's start; a later launch starts without") {
  InProcessTransport t(2);
  auto* slot = reinterpret_cast<int32_t*>(t.map(1, t.allocate(4)));
  std::thread peer([&] {
    std::this_thread::sleep_for(50ms);
    t.set_wait_credit(400ms);  // the peer's launch started 400 ms after this one
    std::this_thread::sleep_for(200ms);
    t.notify(slot, 1, NotifyOp::AtomicAdd);
  });
  CHECK(t.wait(slot, 1, WaitCmp::Ge, 100ms).satisfied);
  peer.join();
  t.set_wait_credit(0ms);
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(t.wait(slot, 2, WaitCmp::Ge, 100ms).satisfied);
  CHECK(std::chrono::steady_clock::now() - start < 400ms);
}

TEST_CASE("a wait that is never satisfied ends at its timeout with the value it found") {
  InProcessTransport t(1);
  auto* slot = reinterpret_cast<int32_t*>(t.map(0, t.allocate(4)));
  t.notify(slot, 1, NotifyOp::AtomicAdd);
  const auto start = std::chrono::steady_clock::now();
  const auto r = t.wait(slot, 2, WaitCmp::Eq, 100ms);
  CHECK(std::chrono::steady_clock::now() - start >= 100ms);
  CHECK_FALSE(r.satisfied);
  CHECK_FALSE(r.aborted);
  CHECK(r.found == 1);
}

TEST_CASE("abort releases a waiter at once and every later wait") {
  InProcessTransport t(1);
  auto* slot = reinterpret_cast<int32_t*>(t.map(0, t.allocate(4)));
  std::thread failing([&] {
    std::this_thread::sleep_for(20ms);
    t.abort();
  });
  const auto r = t.wait(slot, 1, WaitCmp::Ge, 10000ms);
  failing.join();
  CHECK(r.aborted);
  CHECK(t.wait(slot, 1, WaitCmp::Ge, 10000ms).aborted);
}

TEST_CASE("a rank's jobs run in order; ranks run side by side") {
  RankQueues queues(2);
  std::vector<int> order;
  std::atomic<bool> rank1_ran{false};
  // Rank 0's first job waits for rank 1's: only possible when the ranks run concurrently.
  queues.submit(0, [&] {
    while (!rank1_ran) std::this_thread::yield();
    order.push_back(1);
  });
  queues.submit(0, [&] { order.push_back(2); });
  queues.submit(1, [&] { rank1_ran = true; });
  queues.wait_idle();
  CHECK(order == std::vector<int>{1, 2});
}

TEST_CASE("a later dispatch gets the first dispatch's window buffers back as they were left") {
  pypto_golden::sim::Device d0(0, {}), d1(1, {});
  pypto_golden::sim::CommDomain domain({0, 1}, {&d0, &d1}, 1000ms);
  domain.begin_dispatch();
  const int data = domain.allocate(64);
  const int signal = domain.allocate(8);
  CHECK((data == 0 && signal == 1));
  domain.transport().map(1, signal)[0] = 7;
  domain.begin_dispatch();
  CHECK(domain.allocate(64) == data);
  CHECK(domain.allocate(8) == signal);
  CHECK(domain.transport().map(1, signal)[0] == 7);
  CHECK(domain.allocate(4) == 2);  // one more than before: a new zeroed buffer
  domain.begin_dispatch();
  CHECK_THROWS_WITH_AS(domain.allocate(32),
                       "window buffer 0 is 32 bytes in this launch of the host program but was 64 bytes in its "
                       "first; persistent windows (benchmark mode) need the same allocations every launch",
                       pypto_golden::sim::KernelError);
}

TEST_CASE("the domain counts each rank's busy time per dispatch") {
  pypto_golden::sim::Device d0(0, {}), d1(1, {});
  pypto_golden::sim::CommDomain domain({0, 1}, {&d0, &d1}, 1000ms);
  domain.begin_dispatch();
  domain.launch(1, [] { std::this_thread::sleep_for(30ms); });
  domain.launch(1, [] { std::this_thread::sleep_for(10ms); });
  domain.join();
  REQUIRE(domain.busy_us().size() == 2);
  CHECK(domain.busy_us()[0] == 0.0);
  CHECK(domain.busy_us()[1] >= 40000.0);
  domain.begin_dispatch();
  CHECK(domain.busy_us()[1] == 0.0);
}

TEST_CASE("a signal waited on and left set at the end of a dispatch is named") {
  pypto_golden::sim::Device d0(0, {}), d1(7, {});
  pypto_golden::sim::CommDomain domain({0, 7}, {&d0, &d1}, 1000ms);
  domain.begin_dispatch();
  const int signal = domain.allocate(8);
  auto* slots = reinterpret_cast<int32_t*>(domain.transport().map(1, signal));
  domain.note_wait(1, signal, {0, 0}, &slots[0]);
  domain.note_wait(1, signal, {1, 0}, &slots[1]);
  CHECK(domain.signal_left_set() == "");
  slots[1] = 2;
  CHECK(domain.signal_left_set() == "rank 1 (device 7): the signal at [1, 0] (window buffer 0) holds 2");
  domain.begin_dispatch();  // a new launch forgets what the last one waited on
  CHECK(domain.signal_left_set() == "");
}
