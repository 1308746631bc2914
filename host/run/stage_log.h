// The harness's progress lines: "[RUN] compile ...", "[RUN] compile done (0.12s)", ...
#pragma once

#include "report/run_record.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace pypto_golden {

// Where log lines go. The pipeline points it at Python's sys.stdout so our lines and the
// script's prints stay in order; the default writes to std::cout.
using LineSink = std::function<void(const std::string& line)>;

class StageLog {
 public:
  // `stages`, when given, gets one record per stage as it ends (for the run's reports).
  explicit StageLog(LineSink sink, std::vector<StageRecord>* stages = nullptr);
  void line(const std::string& text) const;  // one line, "\n" added

  // Runs `body` between "[RUN] <name> ..." and "[RUN] <name> done (X.XXs)". If body throws,
  // prints "failed" (or "interrupted" for Ctrl-C) instead of "done" and rethrows.
  void stage(const std::string& name, const std::function<void()>& body) const;

 private:
  void ended(const std::string& name, std::chrono::steady_clock::time_point start, const char* status) const;

  LineSink sink_;
  std::vector<StageRecord>* stages_;
};

// "1.23" for 1.234 seconds.
std::string seconds_text(double seconds);

double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace pypto_golden
