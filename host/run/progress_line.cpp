#include "run/progress_line.h"

#include "sim/task_progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pypto_golden {
namespace {

constexpr auto kFirstAfter = std::chrono::seconds(2);
constexpr auto kEvery = std::chrono::milliseconds(250);

unsigned long long all_tasks() {
  unsigned long long n = 0;
  for (const auto& [device, count] : sim::task_counts()) n += count;
  return n;
}

// 1234567 -> "1,234,567"
std::string grouped(unsigned long long n) {
  std::string digits = std::to_string(n), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

void write_out(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;  // a terminal that went away: progress is a courtesy
    done += static_cast<size_t>(n);
  }
}

}  // namespace

bool progress_wanted() {
  const char* off = std::getenv("PYPTO_GOLDEN_PROGRESS");
  if (off && std::strcmp(off, "0") == 0) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
}

ProgressLine::ProgressLine(std::string stage) : stage_(std::move(stage)), start_(std::chrono::steady_clock::now()) {
  if (!progress_wanted()) return;
  tasks_at_start_ = all_tasks();
  ticker_ = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine() { stop(); }

void ProgressLine::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (shown_) write_out("\r\033[K");
}

void ProgressLine::tick() {
  std::unique_lock<std::mutex> lock(mu_);
  if (wake_.wait_for(lock, kFirstAfter, [this] { return stopping_; })) return;
  do {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    char head[64];
    std::snprintf(head, sizeof head, " ... %.1fs", seconds);
    std::string text = "\r\033[K[RUN] " + stage_ + head;
    const unsigned long long tasks = all_tasks() - tasks_at_start_;
    if (tasks) {
      text += ", " + grouped(tasks) + (tasks == 1 ? " task" : " tasks");
      const auto per_device = sim::task_counts();
      if (per_device.size() > 1) {
        text += " (";
        for (size_t k = 0; k < per_device.size(); ++k)
          text += (k ? ", device " : "device ") + std::to_string(per_device[k].first) + ": " +
                  grouped(per_device[k].second);
        text += " in all)";
      }
    }
    write_out(text);
    shown_ = true;
  } while (!wake_.wait_for(lock, kEvery, [this] { return stopping_; }));
}

}  // namespace pypto_golden
