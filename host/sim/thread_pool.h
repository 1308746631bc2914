// Worker threads of one simulated device: run the independent iterations of pl.parallel.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pypto_golden::sim {

// `threads` run a loop's iterations: the thread that calls parallel_for and threads - 1
// workers. The caller taking its share, rather than sleeping until the workers are done,
// saves a wake-up per loop (tens of microseconds on a virtual machine), which small kernels
// of a few loops feel.
class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs body(i) for every i in [0, n), on the calling thread and the workers, and returns
  // when all are done. `order`, when not empty, is the permutation to hand iterations out in
  // (PYPTO_SIM_SHUFFLE). A call made from inside an iteration runs inline. After a failure the remaining iterations are skipped
  // and the exception of the lowest failing iteration is rethrown. Calls from several
  // outside threads take turns: the workers serve one loop at a time.
  void parallel_for(int64_t n, const std::function<void(int64_t)>& body,
                    const std::vector<int64_t>& order = {});

  // How many times a worker has gone to sleep, having polled for a loop in vain (for tests
  // and benchmarks: a worker that sleeps between the loops of one dispatch costs each loop
  // a wake-up).
  uint64_t worker_sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

 private:
  struct Job;
  void worker_loop();
  static void run_share(Job& job);
  // run_share on the calling thread, as a worker: nested loops inline, ATen single-threaded.
  static void run_caller_share(Job& job);

  std::vector<std::thread> workers_;
  std::mutex submit_mu_;  // held by the outside thread whose loop the workers serve
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};  // changed under mu_; polled without it by idle workers
  bool stopping_ = false;
  std::atomic<uint64_t> sleeps_{0};
};

// While a dispatch runs: ATen's (OpenMP) intra-op thread count of the dispatching thread,
// which runs the orchestration and, on a one-worker device, every task, held to the
// device's thread count. The golden sets it far higher (16 by default); a team that size
// outnumbers the device's cores, and its threads spin on after each op, taking the cores
// from the device's workers. Restored on exit.
class DispatchThreadScope {
 public:
  explicit DispatchThreadScope(int device_threads);
  ~DispatchThreadScope();
  DispatchThreadScope(const DispatchThreadScope&) = delete;
  DispatchThreadScope& operator=(const DispatchThreadScope&) = delete;

 private:
  int saved_;
};

// Releases the OpenMP team that the calling thread's last parallel op made (the golden's).
// With no more threads than cores, its threads spin on for milliseconds after each op, and
// a dispatch that follows at once would share the cores with them. The next parallel op
// makes a new team. A no-op inside a parallel region and for a larger team.
void release_idle_omp_team();

}  // namespace pypto_golden::sim
