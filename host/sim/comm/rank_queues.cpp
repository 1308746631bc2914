#include "sim/comm/rank_queues.h"

namespace pypto_golden::sim {

RankQueues::RankQueues(int ranks) : queues_(static_cast<size_t>(ranks)) {
  for (int r = 0; r < ranks; ++r) threads_.emplace_back([this, r] { run(r); });
}

RankQueues::~RankQueues() {
  wait_idle();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  for (auto& q : queues_) q.work.notify_one();
  for (auto& t : threads_) t.join();
}

void RankQueues::submit(int rank, std::function<void()> job) {
  Queue& q = queues_.at(static_cast<size_t>(rank));
  {
    std::lock_guard<std::mutex> lock(mu_);
    q.jobs.push_back(std::move(job));
    ++busy_;
  }
  q.work.notify_one();
}

void RankQueues::wait_idle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return busy_ == 0; });
}

void RankQueues::run(int rank) {
  Queue& q = queues_[static_cast<size_t>(rank)];
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    q.work.wait(lock, [&] { return stopping_ || !q.jobs.empty(); });
    if (q.jobs.empty()) return;  // stopping, nothing left
    std::function<void()> job = std::move(q.jobs.front());
    q.jobs.pop_front();
    lock.unlock();
    job();
    lock.lock();
    if (--busy_ == 0) idle_.notify_all();
  }
}

}  // namespace pypto_golden::sim
