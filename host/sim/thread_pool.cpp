#include "sim/thread_pool.h"

#include "sim/blas_threads.h"
#include "sim/vector_math_warmup.h"

#include <ATen/Parallel.h>
#include <omp.h>

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>

namespace pypto_golden::sim {
namespace {
thread_local bool t_in_worker = false;

// How long a thread that has nothing to do polls before it sleeps: a worker between loops,
// the caller for the workers' last iterations. Waking a sleeping thread costs tens of
// microseconds on a virtual machine, and a kernel's loops often follow each other closer
// than that; so do the loops of back-to-back dispatches of a small kernel (a benchmark run),
// which at 50 us still slept and were woken once a dispatch. Polling yields the core, so
// threads that outnumber the cores cost little.
constexpr auto kPoll = std::chrono::microseconds(200);

// Polls `ready` for up to kPoll; whether it became true.
template <typename Ready>
bool poll_briefly(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kPoll;
  for (;;) {
    for (int k = 0; k < 64; ++k) {
      if (ready()) return true;
      _mm_pause();
    }
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
}
}  // namespace

struct ThreadPool::Job {
  int64_t n = 0;
  const std::function<void(int64_t)>* body = nullptr;
  const std::vector<int64_t>* order = nullptr;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  int64_t error_index = std::numeric_limits<int64_t>::max();
  std::exception_ptr error;
  std::atomic<int> active{0};  // workers still inside run_share (changed under the pool mutex)
};

ThreadPool::ThreadPool(int threads) {
  warm_up_vector_math();  // before any worker can make a first call of its own
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_share(Job& job) {
  for (;;) {
    int64_t k = job.next.fetch_add(1, std::memory_order_relaxed);
    if (k >= job.n || job.failed.load(std::memory_order_relaxed)) return;
    int64_t i = job.order->empty() ? k : (*job.order)[k];
    try {
      (*job.body)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mu);
      if (i < job.error_index) {
        job.error_index = i;
        job.error = std::current_exception();
      }
      job.failed.store(true, std::memory_order_relaxed);
    }
  }
}

void ThreadPool::run_caller_share(Job& job) {
  struct AsWorker {
    int omp_threads = omp_get_max_threads();
    AsWorker() {
      t_in_worker = true;
      if (omp_threads != 1) omp_set_num_threads(1);
    }
    ~AsWorker() {
      t_in_worker = false;
      if (omp_threads != 1) omp_set_num_threads(omp_threads);
    }
  } as_worker;
  run_share(job);
}

void ThreadPool::worker_loop() {
  t_in_worker = true;
  // Tiles are small and the device has its own workers: ATen must not fan out again
  // inside each of them (that would oversubscribe the cores). ATen applies the global
  // thread count lazily on a thread's first parallel op, so do that first, then override.
  at::internal::lazy_init_num_threads();
  omp_set_num_threads(1);
  uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    poll_briefly([&] { return generation_.load(std::memory_order_acquire) != seen; });
    {
      std::unique_lock<std::mutex> lock(mu_);
      // A loop the others finished while this worker polled: poll for the next one.
      if (!stopping_ && job_ == nullptr && generation_ != seen) {
        seen = generation_;
        continue;
      }
      auto woken = [&] { return stopping_ || generation_ != seen; };
      while (!woken()) {
        sleeps_.fetch_add(1, std::memory_order_relaxed);
        wake_.wait(lock);
      }
      if (stopping_) return;
      seen = generation_;
      // Woken for a loop the others have already finished: poll again rather than sleep,
      // or this worker, once asleep, is woken too late for every later loop and sleeps
      // again each time, and every loop pays a wake-up on the submitting thread.
      if (job_ == nullptr) continue;
      job = job_;
      ++job->active;
    }
    run_share(*job);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--job->active == 0) done_.notify_all();
    }
  }
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t)>& body,
                              const std::vector<int64_t>& order) {
  if (n <= 0) return;
  if (t_in_worker || workers_.empty() || n == 1) {
    // Nested parallel loops (and single-thread devices) run inline, in the given order.
    for (int64_t k = 0; k < n; ++k) body(order.empty() ? k : order[k]);
    return;
  }
  std::lock_guard<std::mutex> turn(submit_mu_);
  SerialBlasScope serial_blas;  // the workers' GEMMs run side by side, not in OpenBLAS's pool
  Job job;
  job.n = n;
  job.body = &body;
  job.order = &order;
  {
    std::unique_lock<std::mutex> lock(mu_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  run_caller_share(job);
  poll_briefly([&] { return job.active.load(std::memory_order_acquire) == 0; });
  {
    std::unique_lock<std::mutex> lock(mu_);
    // Wait until every iteration was handed out and no worker still holds the job.
    done_.wait(lock, [&] {
      return job.active == 0 && (job.next.load() >= n || job.failed.load());
    });
    job_ = nullptr;
  }
  if (job.error) std::rethrow_exception(job.error);
}

DispatchThreadScope::DispatchThreadScope(int device_threads) : saved_(omp_get_max_threads()) {
  if (saved_ > device_threads) omp_set_num_threads(std::max(device_threads, 1));
}

void release_idle_omp_team() {
  // A team larger than the machine's cores spins only briefly (libgomp's rule), and
  // releasing its threads would cost more than it saves.
  if (!omp_in_parallel() && omp_get_max_threads() <= omp_get_num_procs()) omp_pause_resource_all(omp_pause_soft);
}

DispatchThreadScope::~DispatchThreadScope() {
  if (omp_get_max_threads() != saved_) omp_set_num_threads(saved_);
}

}  // namespace pypto_golden::sim
