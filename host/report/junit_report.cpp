#include "report/junit_report.h"

#include "bench/bench_context.h"
#include "snapshot/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace pypto_golden {
namespace {

// Every line of the document that is markup starts with '<' after its indent; text is
// escaped, so no line of a message can be mistaken for a suite's first or last line.
constexpr const char* kHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
constexpr const char* kSuiteOpen = "  <testsuite ";
constexpr const char* kSuiteClose = "  </testsuite>";

std::string seconds3(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s < 0 ? 0.0 : s);
  return buf;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// One rendered <testcase> and what it counts as.
struct Case {
  std::string xml;
  bool failure = false;
  bool error = false;
  double seconds = 0;
};

std::string testcase(const std::string& classname, const std::string& name, double seconds, const std::string& body) {
  std::string x = "    <testcase classname=\"" + xml_escape(classname) + "\" name=\"" + xml_escape(name) +
                  "\" time=\"" + seconds3(seconds) + "\"";
  return body.empty() ? x + "/>\n" : x + ">\n" + body + "    </testcase>\n";
}

std::string problem(const char* element, const std::string& type, const std::string& text) {
  return std::string("      <") + element + " type=\"" + xml_escape(type) + "\" message=\"" +
         xml_escape(first_line(text)) + "\">" + xml_escape(text) + "</" + element + ">\n";
}

// The run's stages, times and work_dir, as a reader of the CI page wants them.
std::string run_log(const RunRecord& run) {
  std::string out = "kernel " + run.kernel + " on " + run.platform + "\n";
  for (const auto& s : run.stages) out += s.name + " " + s.status + " (" + seconds3(s.seconds) + "s)\n";
  if (!run.work_dir.empty()) out += "work_dir: " + run.work_dir + "\n";
  if (run.passed && !run.validated) out += "validation skipped: no golden_fn or golden_data\n";
  return "      <system-out>" + xml_escape(out) + "</system-out>\n";
}

// This process's testsuite: every run of the script so far.
struct Suite {
  std::mutex mu;
  std::string name, id, timestamp, hostname;
  std::vector<Case> cases;
  std::map<std::string, int> runs_of;  // kernel name -> runs so far (names repeat as "k #2")
};

Suite& suite() {
  static Suite s;
  return s;
}

std::string render_suite(const Suite& s) {
  int failures = 0, errors = 0;
  double seconds = 0;
  std::string cases;
  for (const auto& c : s.cases) {
    failures += c.failure;
    errors += c.error;
    seconds += c.seconds;
    cases += c.xml;
  }
  return std::string(kSuiteOpen) + "name=\"" + xml_escape(s.name) + "\" id=\"" + xml_escape(s.id) + "\" tests=\"" +
         std::to_string(s.cases.size()) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
         std::to_string(errors) + "\" skipped=\"0\" time=\"" + seconds3(seconds) + "\" timestamp=\"" + s.timestamp +
         "\" hostname=\"" + xml_escape(s.hostname) + "\">\n" + "    <properties>\n" +
         "      <property name=\"pypto-golden\" value=\"" PYPTO_GOLDEN_VERSION "\"/>\n" + "    </properties>\n" + cases +
         kSuiteClose + "\n";
}

// The value of attribute `name` on a suite's first line ("" when absent).
std::string attribute(const std::string& line, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto at = line.find(key);
  if (at == std::string::npos) return "";
  const auto from = at + key.size();
  return line.substr(from, line.find('"', from) - from);
}

// The suites of an existing document, each as its text; throws when the text is not a
// document this writer made.
std::vector<std::string> existing_suites(const std::string& text, const std::filesystem::path& file) {
  std::vector<std::string> suites;
  if (text.empty()) return suites;
  auto refuse = [&](const std::string& why) {
    return ReportFileError("--junit: " + file.string() + " " + why +
                          "; pypto-golden adds only to JUnit files it wrote itself: remove it or name another file");
  };
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() < 3 || lines[0] != kHeader || lines[1].rfind("<testsuites ", 0) != 0 ||
      lines.back() != "</testsuites>")
    throw refuse("is not a JUnit XML document (no <testsuites> root written by pypto-golden)");
  std::string current;
  bool inside = false;
  for (size_t k = 2; k + 1 < lines.size(); ++k) {
    const std::string& l = lines[k];
    if (!inside) {
      if (l.rfind(kSuiteOpen, 0) != 0) throw refuse("has a line outside any <testsuite> (line " + std::to_string(k + 1) + ")");
      inside = true;
      current.clear();
    }
    current += l + "\n";
    if (l == kSuiteClose) {
      suites.push_back(current);
      inside = false;
    }
  }
  if (inside) throw refuse("ends inside a <testsuite>");
  return suites;
}

// An exclusive lock on `file` as it is now on disk: a writer that renamed a new file over
// the one we locked makes us lock again.
int lock_current(const std::filesystem::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) throw ReportFileError("--junit: cannot create the directory of " + file.string() + " (" + ec.message() + ")");
  for (;;) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw ReportFileError("--junit: cannot open " + file.string() + " (" + std::strerror(errno) + ")");
    if (::flock(fd, LOCK_EX) != 0) {
      const int e = errno;
      ::close(fd);
      throw ReportFileError("--junit: cannot lock " + file.string() + " (" + std::strerror(e) + ")");
    }
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::stat(file.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
      return fd;
    ::close(fd);
  }
}

std::string read_all(int fd, const std::filesystem::path& file) {
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ReportFileError("--junit: cannot read " + file.string() + " (" + std::strerror(errno) + ")");
    }
    text.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': case '\t': out += static_cast<char>(c); break;
      case '\r': out += "&#13;"; break;
      default:
        // XML 1.0 has no way to write the other control characters: shown as U+FFFD.
        if (c < 0x20) out += "\xEF\xBF\xBD";
        else out += static_cast<char>(c);
    }
  }
  return out;
}

std::string junit_document(const std::string& suites) {
  int tests = 0, failures = 0, errors = 0;
  double seconds = 0;
  std::istringstream in(suites);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(kSuiteOpen, 0) != 0) continue;
    tests += std::atoi(attribute(line, "tests").c_str());
    failures += std::atoi(attribute(line, "failures").c_str());
    errors += std::atoi(attribute(line, "errors").c_str());
    seconds += std::atof(attribute(line, "time").c_str());
  }
  return std::string(kHeader) + "\n<testsuites name=\"pypto-golden\" tests=\"" + std::to_string(tests) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\" time=\"" +
         seconds3(seconds) + "\">\n" + suites + "</testsuites>\n";
}

void junit_append(const std::filesystem::path& file, const std::string& suite_name, const RunRecord& run) {
  Suite& s = suite();
  std::lock_guard<std::mutex> guard(s.mu);
  if (s.id.empty()) {
    s.name = suite_name;
    s.timestamp = clock_text("%Y-%m-%dT%H:%M:%S", false);
    s.hostname = host_name();
    if (s.hostname.empty()) s.hostname = "localhost";
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    s.id = s.hostname + "-" + std::to_string(::getpid()) + "-" + std::to_string(us);
  }
  const std::string stem = suite_name.size() > 3 && suite_name.compare(suite_name.size() - 3, 3, ".py") == 0
                               ? suite_name.substr(0, suite_name.size() - 3)
                               : suite_name;
  const int nth = ++s.runs_of[run.kernel];
  const std::string name = nth == 1 ? run.kernel : run.kernel + " #" + std::to_string(nth);

  // The run: a mismatch is a failure, an exception (or an interrupt) an error.
  Case c;
  c.seconds = run.seconds;
  std::string body;
  if (!run.passed && !run.error_type.empty()) {
    c.error = true;
    body = problem("error", run.error_type, run.error);
  } else if (!run.passed) {
    c.failure = true;
    body = problem("failure", run.outputs.empty() ? "run failed" : "mismatch", run.error);
  }
  c.xml = testcase(stem, name, run.seconds, body + run_log(run));
  std::vector<Case> added{c};
  // Each validated output.
  for (const auto& o : run.outputs) {
    Case oc;
    oc.failure = !o.passed;
    const std::string gate = o.gate.empty() ? "allclose" : o.gate;
    oc.xml = testcase(stem + "." + name, o.name, 0,
                      o.passed ? "" : problem("failure", gate, "'" + o.name + "' does not match golden (" + gate + ")\n" +
                                                                   o.detail));
    added.push_back(oc);
  }

  // Kept even when this write fails: the next run's write carries them.
  s.cases.insert(s.cases.end(), added.begin(), added.end());
  const int fd = lock_current(file);
  try {
    std::vector<std::string> suites = existing_suites(read_all(fd, file), file);
    const std::string ours = render_suite(s);
    bool replaced = false;
    for (auto& text : suites)
      if (attribute(text.substr(0, text.find('\n')), "id") == xml_escape(s.id)) {
        text = ours;
        replaced = true;
      }
    if (!replaced) suites.push_back(ours);
    std::string all;
    for (const auto& text : suites) all += text;
    const std::string document = junit_document(all);
    try {
      write_file_atomically(file, [&](int out) { write_all(out, document.data(), document.size(), file); });
    } catch (const FileWriteError& e) {
      throw ReportFileError(std::string("--junit: ") + e.what());
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace pypto_golden
