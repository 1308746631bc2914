// The device's worker pool: the caller and its workers, every iteration once, errors of the lowest failing iteration,
// nested loops inline, and BLAS kept to the calling worker while iterations run side by side.
#include "sim/blas_threads.h"
#include "sim/thread_pool.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <doctest/doctest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

using pypto_golden::sim::blas_thread_count;
using pypto_golden::sim::SerialBlasScope;
using pypto_golden::sim::ThreadPool;

TEST_CASE("parallel_for runs every iteration exactly once, in the given order when inline") {
  ThreadPool pool(2);
  std::vector<std::atomic<int>> hits(100);
  pool.parallel_for(100, [&](int64_t i) { hits[static_cast<size_t>(i)]++; });
  for (auto& h : hits) CHECK(h.load() == 1);
  ThreadPool single(1);
  std::vector<int64_t> seen;
  single.parallel_for(3, [&](int64_t i) { seen.push_back(i); }, {2, 0, 1});
  CHECK(seen == std::vector<int64_t>{2, 0, 1});
}

TEST_CASE("the calling thread runs iterations beside the workers: a pool of 2 is the caller and one worker") {
  ThreadPool pool(2);
  CHECK(pool.size() == 2);
  const auto caller = std::this_thread::get_id();
  for (int round = 0; round < 20; ++round) {
    // Each iteration waits for the other to start: both run at once, on two threads.
    std::atomic<int> started{0};
    std::vector<std::thread::id> ran(2);
    pool.parallel_for(2, [&](int64_t i) {
      ran[static_cast<size_t>(i)] = std::this_thread::get_id();
      started++;
      while (started.load() < 2) std::this_thread::yield();
    });
    CHECK(ran[0] != ran[1]);
    CHECK((ran[0] == caller || ran[1] == caller));
  }
}

TEST_CASE("a worker woken for a loop the caller already finished polls for the next one") {
  // Loops of trivial iterations: the caller runs them all before a sleeping worker wakes.
  // That worker must poll for the next loop (as after a loop it served), not sleep again at
  // once: else it misses every later loop too, each costing the caller a wake-up.
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  auto trivial = [&](int64_t i) { sum += i; };
  pool.parallel_for(2, trivial);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the worker polls 200 us, then sleeps
  const uint64_t asleep = pool.worker_sleeps();
  CHECK(asleep >= 1);
  for (int loop = 0; loop < 40; ++loop) {
    pool.parallel_for(2, trivial);
    // The caller's own work between loops, as between a dispatch's loops: longer than a
    // wake-up, shorter than the worker's poll.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  CHECK(sum.load() == 41);
  // Polling from the late wake on, the worker sleeps no more (a little slack for a loaded
  // machine); one that slept again at once was woken, late, for most of the 40 loops.
  CHECK(pool.worker_sleeps() - asleep <= 4);
}

TEST_CASE("parallel_for rethrows the error of the lowest failing iteration") {
  ThreadPool pool(2);
  for (int round = 0; round < 20; ++round) {
    try {
      pool.parallel_for(64, [](int64_t i) {
        if (i == 5 || i == 40) throw std::runtime_error("iteration " + std::to_string(i));
      });
      FAIL("no error");
    } catch (const std::runtime_error& e) {
      // Iteration 40 may have failed first, but 5 is the one a sequential run reports.
      CHECK(std::string(e.what()) == "iteration 5");
    }
  }
}

TEST_CASE("a parallel loop inside a worker runs inline on that worker") {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  pool.parallel_for(4, [&](int64_t) {
    const auto outer = std::this_thread::get_id();
    pool.parallel_for(8, [&](int64_t) {
      CHECK(std::this_thread::get_id() == outer);
      total++;
    });
  });
  CHECK(total.load() == 32);
}

TEST_CASE("OpenBLAS runs single-threaded inside the workers and gets its thread count back") {
  const int before = blas_thread_count();
  if (before < 0) {
    // Another BLAS: nothing to switch, and the scope must not fail.
    SerialBlasScope scope;
    CHECK(blas_thread_count() == -1);
    return;
  }
  ThreadPool pool(2);
  std::atomic<int> inside_max{0};
  at::Tensor a = at::randn({64, 64});
  pool.parallel_for(8, [&](int64_t) {
    int n = blas_thread_count();
    int prev = inside_max.load();
    while (n > prev && !inside_max.compare_exchange_weak(prev, n)) {
    }
    at::Tensor c = at::mm(a, a);  // a real GEMM while the scope is open
    CHECK(c.size(0) == 64);
  });
  CHECK(inside_max.load() == 1);
  CHECK(blas_thread_count() == before);
  {
    SerialBlasScope outer;
    {
      SerialBlasScope nested;  // overlapping scopes (two devices): the last one restores
      CHECK(blas_thread_count() == 1);
    }
    CHECK(blas_thread_count() == 1);
  }
  CHECK(blas_thread_count() == before);
}

TEST_CASE("parallel_for called from several outside threads serves each loop completely") {
  // The workers serve one loop at a time; before they took turns, a second caller replaced
  // the first one's job and both waited forever.
  ThreadPool pool(2);
  std::vector<std::atomic<int>> hits(4 * 50 * 64);
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&, c] {
      for (int round = 0; round < 50; ++round)
        pool.parallel_for(64, [&](int64_t i) { hits[static_cast<size_t>((c * 50 + round) * 64 + i)]++; });
    });
  for (auto& t : callers) t.join();
  for (auto& h : hits) CHECK(h.load() == 1);
}

TEST_CASE("a dispatch holds its thread's OpenMP team to the device's threads and gives the count back") {
  const int before = omp_get_max_threads();
  omp_set_num_threads(16);  // what the golden sets by default
  {
    pypto_golden::sim::DispatchThreadScope one(1);
    CHECK(omp_get_max_threads() == 1);
    CHECK(at::get_num_threads() == 1);  // what ATen's parallel ops fan out to
  }
  CHECK(omp_get_max_threads() == 16);
  {
    pypto_golden::sim::DispatchThreadScope two(2);
    CHECK(omp_get_max_threads() == 2);
  }
  {
    pypto_golden::sim::DispatchThreadScope more(64);  // never raised above the caller's count
    CHECK(omp_get_max_threads() == 16);
  }
  CHECK(omp_get_max_threads() == 16);
  omp_set_num_threads(before);
}

namespace {
int thread_count() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) n += entry.is_directory() ? 1 : 0;
  return n;
}

// Runs one ATen parallel op of `n` chunks whose threads wait for each other: the calling
// thread's OpenMP team then has n threads. Whether they all came.
bool fan_out(int n) {
  at::internal::lazy_init_num_threads();
  at::set_num_threads(n);
  std::atomic<int> arrived{0};
  at::parallel_for(0, n, 1, [&](int64_t, int64_t) {
    ++arrived;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (arrived.load() < n && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  });
  return arrived.load() == n;
}

// The thread count once it stops changing for 100 ms (within 3 s).
int settled_thread_count() {
  int last = thread_count();
  for (int k = 0; k < 30; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int now = thread_count();
    if (now == last) return now;
    last = now;
  }
  return last;
}
}  // namespace

TEST_CASE("the golden's OpenMP team is released before the dispatch, unless it outnumbers the cores") {
  const int procs = omp_get_num_procs();
  const int before = at::get_num_threads();
  REQUIRE(procs >= 2);  // the suite's machines have at least 2 cores
  if (!fan_out(procs)) {
    // Seen in the sanitizer build (clang, LLVM's OpenMP runtime beside torch's libgomp):
    // ATen's parallel op runs on one thread, so there is no team to release.
    MESSAGE("ATen's parallel op ran on fewer threads than asked: no OpenMP team to release in this build");
    at::set_num_threads(before);
    return;
  }
  const int with_team = settled_thread_count();
  pypto_golden::sim::release_idle_omp_team();
  CHECK(settled_thread_count() == with_team - (procs - 1));  // the team's threads, less the caller

  REQUIRE(fan_out(procs * 4));  // more threads than cores: they soon sleep, and stay for the next op
  const int with_big_team = settled_thread_count();
  pypto_golden::sim::release_idle_omp_team();
  CHECK(settled_thread_count() == with_big_team);
  at::set_num_threads(before);
}
