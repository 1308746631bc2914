#include "bench/bench_knobs.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace pypto_golden {
namespace {

std::string trimmed_lower(const char* value) {
  std::string v(value);
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  v.erase(v.begin(), std::find_if(v.begin(), v.end(), not_space));
  v.erase(std::find_if(v.rbegin(), v.rend(), not_space).base(), v.end());
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

int count_knob(const char* name, int fallback, int minimum, const std::function<void(const std::string&)>& warn) {
  const char* raw = std::getenv(name);
  if (!raw) return fallback;
  std::string v(raw);
  bool digits = !v.empty() && v.size() <= 9 && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
  int n = digits ? std::atoi(v.c_str()) : -1;
  if (n < minimum) {
    warn("[RUN]   ignoring " + std::string(name) + "='" + v + "' (want an integer >= " + std::to_string(minimum) +
         "); using " + std::to_string(fallback));
    return fallback;
  }
  return n;
}

}  // namespace

bool env_truthy(const char* value) {
  if (!value) return false;
  std::string v = trimmed_lower(value);
  return !(v.empty() || v == "0" || v == "false" || v == "no" || v == "off");
}

BenchKnobs read_bench_knobs(const std::function<void(const std::string&)>& warn) {
  BenchKnobs k;
  k.enabled = env_truthy(std::getenv("PYPTO_BENCH"));
  if (!k.enabled) return k;
  k.rounds = count_knob("PYPTO_BENCH_ROUNDS", 100, 1, warn);
  k.warmup = count_knob("PYPTO_BENCH_WARMUP", 5, 0, warn);
  k.raw = env_truthy(std::getenv("PYPTO_BENCH_RAW"));
  if (const char* json = std::getenv("PYPTO_BENCH_JSON")) k.json_path = json;
  return k;
}

}  // namespace pypto_golden
