// One thread per rank of an L3 program: it runs the chip programs launched on that rank in
// launch order, while the other ranks run theirs side by side (so a rank that waits for a
// peer's signal never blocks the peer).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pypto_golden::sim {

class RankQueues {
 public:
  explicit RankQueues(int ranks);
  ~RankQueues();  // finishes the queued jobs, then stops the threads
  RankQueues(const RankQueues&) = delete;
  RankQueues& operator=(const RankQueues&) = delete;

  // Queues `job` on `rank`; it must not throw (the caller records its failures).
  void submit(int rank, std::function<void()> job);
  // Returns when every job submitted so far has finished.
  void wait_idle();

 private:
  void run(int rank);

  // A rank's jobs and the condition its thread sleeps on: a submit wakes only that thread.
  struct Queue {
    std::deque<std::function<void()>> jobs;
    std::condition_variable work;
  };

  std::mutex mu_;
  std::condition_variable idle_;
  std::deque<Queue> queues_;  // a deque: Queue cannot move
  int busy_ = 0;  // jobs queued or running
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pypto_golden::sim
