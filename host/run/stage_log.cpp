#include "run/stage_log.h"

#include "run/progress_line.h"
#include "run/run_errors.h"
#include "sim/kernel_error.h"

#include <pybind11/pybind11.h>

#include <cstdio>
#include <iostream>

namespace pypto_golden {

StageLog::StageLog(LineSink sink, std::vector<StageRecord>* stages) : sink_(std::move(sink)), stages_(stages) {
  if (!sink_) sink_ = [](const std::string& s) { std::cout << s << std::endl; };
}

void StageLog::line(const std::string& text) const { sink_(text); }

std::string seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", seconds);
  return buf;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// "[RUN] <name> done (0.12s)" (or failed / interrupted), recorded for the reports too.
void StageLog::ended(const std::string& name, std::chrono::steady_clock::time_point start, const char* status) const {
  const double seconds = seconds_since(start);
  if (stages_) stages_->push_back({name, seconds, status});
  line("[RUN] " + name + " " + status + " (" + seconds_text(seconds) + "s)");
}

void StageLog::stage(const std::string& name, const std::function<void()>& body) const {
  line("[RUN] " + name + " ...");
  auto start = std::chrono::steady_clock::now();
  ProgressLine progress(name);  // erased (stop) before the stage's end line
  try {
    body();
  } catch (const sim::Interrupted&) {
    progress.stop();
    ended(name, start, "interrupted");
    throw StageInterrupted(name, seconds_since(start));
  } catch (pybind11::error_already_set& e) {
    // Ctrl-C (or SIGTERM) while the stage ran Python: the script's compile, init_value,
    // golden_fn or comparator. The same stop as in native code.
    progress.stop();
    const bool interrupt = e.matches(PyExc_KeyboardInterrupt);
    ended(name, start, interrupt ? "interrupted" : "failed");
    if (interrupt) throw StageInterrupted(name, seconds_since(start));
    throw;
  } catch (...) {
    progress.stop();
    ended(name, start, "failed");
    throw;
  }
  progress.stop();
  ended(name, start, "done");
}

}  // namespace pypto_golden
