// Progress on a terminal: while a stage runs longer than two seconds, one line rewritten in
// place ("[RUN] runtime ... 12.4s, 35,210 tasks"), erased before the stage's own end line.
// Never written when stdout is not a terminal, so logs and CI greps see exactly the lines
// they always did.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace pypto_golden {

// stdout is a terminal (not "dumb") and PYPTO_GOLDEN_PROGRESS is not 0.
bool progress_wanted();

class ProgressLine {
 public:
  explicit ProgressLine(std::string stage);  // starts the ticker when progress_wanted()
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Stops the ticker and erases the line if it was shown; idempotent.
  void stop();

 private:
  void tick();

  std::string stage_;
  std::chrono::steady_clock::time_point start_;
  unsigned long long tasks_at_start_ = 0;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool shown_ = false;
  std::thread ticker_;
};

}  // namespace pypto_golden
