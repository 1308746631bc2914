// The harness's progress lines: "[RUN] compile ...", "[RUN] compile done (0.12s)", ...
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace pypto_golden {

// Where log lines go. The pipeline points it at Python's sys.stdout so our lines and the
// script's prints stay in order; the default writes to std::cout.
using LineSink = std::function<void(const std::string& line)>;

class StageLog {
 public:
  explicit StageLog(LineSink sink);
  void line(const std::string& text) const;  // one line, "\n" added

  // Runs `body` between "[RUN] <name> ..." and "[RUN] <name> done (X.XXs)". If body throws,
  // prints "failed" (or "interrupted" for Ctrl-C) instead of "done" and rethrows.
  void stage(const std::string& name, const std::function<void()>& body) const;

 private:
  LineSink sink_;
};

// "1.23" for 1.234 seconds.
std::string seconds_text(double seconds);

double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace pypto_golden
