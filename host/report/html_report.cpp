#include "report/html_report.h"

#include "bench/bench_context.h"
#include "report/html_report_assets.h"
#include "report/junit_report.h"
#include "snapshot/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

namespace pypto_golden {
namespace {

using nlohmann::json;

// Marks a page as this writer's: a report.html without it is someone else's file.
constexpr const char* kGenerator = R"(<meta name="generator" content="pypto-golden report">)";

std::string esc(const std::string& s) { return xml_escape(s); }

// `v` printed with `digits` decimals, or in %g form (6 significant digits) for digits < 0.
std::string number(double v, int digits) {
  char buf[64];
  if (digits < 0)
    std::snprintf(buf, sizeof buf, "%.6g", v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

json picture_json(const OutputPicture& p) {
  json unwritten = json::array();
  for (const auto u : p.unwritten) unwritten.push_back(u ? 1 : 0);
  json max_diff = json::array();
  for (const float v : p.max_diff) max_diff.push_back(std::isfinite(v) ? json(v) : json(nullptr));  // null: NaN / inf
  return {{"grid_rows", p.grid_rows}, {"grid_cols", p.grid_cols}, {"cell_rows", p.cell_rows},
          {"cell_cols", p.cell_cols}, {"max_diff", max_diff}, {"unwritten", unwritten},
          {"worst_cell", p.worst_cell}, {"exact", p.exact}, {"decades", p.decades}, {"nonfinite", p.nonfinite},
          {"low_decade", kHistogramLowDecade}};
}

json run_json(const RunRecord& r) {
  json outputs = json::array();
  for (const auto& o : r.outputs)
    outputs.push_back(o.picture ? json{{"name", o.name}, {"picture", picture_json(*o.picture)}}
                                : json{{"name", o.name}});
  json lanes = json::array();
  for (const auto& t : r.swimlane)
    lanes.push_back({{"name", t.name}, {"device", t.device}, {"lane", t.lane}, {"start_us", t.start_us},
                     {"end_us", t.end_us}});
  return {{"outputs", outputs}, {"bench_us", r.bench_us}, {"swimlane", lanes}};
}

std::string verdict(const RunRecord& r) {
  if (!r.error_type.empty()) return "ERROR";
  return r.passed ? "PASS" : "FAIL";
}

std::string index_text(const std::vector<int64_t>& index) {
  std::string s = "[";
  for (size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
  return s + "]";
}

void failing_output(std::ostringstream& h, size_t run, size_t k, const OutputRecord& o) {
  h << "<div class=\"output\"><h4>'" << esc(o.name) << "' <span class=\"FAIL\">FAIL</span></h4>\n";
  if (!o.detail.empty()) h << "<pre>" << esc(o.detail) << "</pre>\n";
  if (!o.picture) return void(h << "</div>\n");
  const OutputPicture& p = *o.picture;
  const std::string at = " data-run=\"" + std::to_string(run) + "\" data-output=\"" + std::to_string(k) + "\"";
  h << "<figure><canvas data-kind=\"heatmap\"" << at << "></canvas><figcaption>|actual &minus; expected| over "
    << esc(o.name + p.slice) << " (" << p.rows << " &times; " << p.cols << ")";
  if (p.cell_rows * p.cell_cols > 1)
    h << ", each cell the largest of " << p.cell_rows << " &times; " << p.cell_cols << " elements";
  h << "; pale: equal, yellow to dark red: larger (log scale), black: NaN or infinite";
  if (!p.unwritten.empty()) h << ", grey: never written by the kernel";
  h << "; blue frame: the worst element</figcaption></figure>\n";
  h << "<figure><canvas data-kind=\"histogram\"" << at
    << "></canvas><figcaption>elements by |actual &minus; expected| (log scale): equal, then per decade (1e-3:"
       " [0.001, 0.01)), then NaN or infinite</figcaption></figure>\n";
  if (!p.worst.empty()) {
    h << "<table><tr><th>worst elements</th><th>actual</th><th>expected</th><th>|difference|</th></tr>\n";
    for (const auto& c : p.worst)
      h << "<tr><td>" << esc(o.name + index_text(c.index)) << "</td><td class=\"num\">" << number(c.actual, -1)
        << "</td><td class=\"num\">" << number(c.expected, -1) << "</td><td class=\"num\">"
        << number(std::fabs(c.actual - c.expected), -1) << "</td></tr>\n";
    h << "</table>\n";
  }
  h << "</div>\n";
}

void run_section(std::ostringstream& h, size_t i, const RunRecord& r) {
  const std::string v = verdict(r);
  h << "<section class=\"run " << (v == "PASS" ? "pass" : "fail") << "\" id=\"run-" << i << "\">\n<h2>"
    << esc(r.kernel.empty() ? "(no kernel)" : r.kernel) << " <span class=\"verdict " << v << "\">" << v
    << "</span></h2>\n<p>" << esc(r.platform) << (r.platform.empty() ? "" : " &middot; ") << number(r.seconds, 2)
    << " s";
  if (!r.work_dir.empty()) h << " &middot; <span class=\"path\">" << esc(r.work_dir) << "</span>";
  h << "</p>\n";
  bool output_failed = false;
  for (const auto& o : r.outputs) output_failed = output_failed || !o.passed;
  // A mismatch's text is its outputs' blocks, shown with each output below.
  if (!r.error.empty() && (!r.error_type.empty() || !output_failed))
    h << "<pre>" << esc((r.error_type.empty() ? "" : r.error_type + ": ") + r.error) << "</pre>\n";
  if (!r.stages.empty()) {
    double longest = 1e-9;
    for (const auto& s : r.stages) longest = std::max(longest, s.seconds);
    h << "<h3>Stages</h3>\n<table><tr><th>stage</th><th>status</th><th>seconds</th><th></th></tr>\n";
    for (const auto& s : r.stages)
      h << "<tr><td>" << esc(s.name) << "</td><td>" << esc(s.status) << "</td><td class=\"num\">"
        << number(s.seconds, 3) << "</td><td style=\"width:320px\"><div class=\"bar\" style=\"width:"
        << number(100.0 * s.seconds / longest, 1) << "%\"></div></td></tr>\n";
    h << "</table>\n";
  }
  if (!r.outputs.empty()) {
    h << "<h3>Outputs</h3>\n<table><tr><th>output</th><th>verdict</th><th>gate</th><th>tolerance</th>"
         "<th>shape and dtype</th></tr>\n";
    for (const auto& o : r.outputs)
      h << "<tr><td>" << esc(o.name) << "</td><td class=\"" << (o.passed ? "PASS" : "FAIL") << "\">"
        << (o.passed ? "PASS" : "FAIL") << "</td><td>" << esc(o.gate.empty() ? "allclose" : o.gate) << "</td><td>"
        << esc(o.tolerance) << "</td><td>" << esc(o.shape_dtype) << "</td></tr>\n";
    h << "</table>\n";
    for (size_t k = 0; k < r.outputs.size(); ++k)
      if (!r.outputs[k].passed) failing_output(h, i, k, r.outputs[k]);
  }
  if (!r.bench_us.empty()) {
    std::vector<double> s = r.bench_us;
    std::sort(s.begin(), s.end());
    const double median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
    h << "<h3>Benchmark</h3>\n<p>" << s.size() << " timed dispatches: min " << number(s.front(), 1) << " us, median "
      << number(median, 1) << " us, max " << number(s.back(), 1) << " us</p>\n<figure><canvas data-kind=\"bench\" "
      << "data-run=\"" << i << "\"></canvas><figcaption>dispatches per host time (us)</figcaption></figure>\n";
  }
  if (!r.swimlane.empty()) {
    h << "<h3>Chip swimlane</h3>\n<figure><canvas data-kind=\"swimlane\" data-run=\"" << i
      << "\"></canvas><figcaption>" << r.swimlane.size() << " task" << (r.swimlane.size() == 1 ? "" : "s");
    if (r.swimlane_total > r.swimlane.size()) h << " (the first, of " << r.swimlane_total << ")";
    h << " by device and worker over the dispatch; a colour per task name</figcaption></figure>\n";
  }
  h << "</section>\n";
}

std::mutex report_mu;
std::vector<RunRecord>& process_runs() {
  static std::vector<RunRecord> runs;
  return runs;
}

}  // namespace

bool html_report_requested() {
  const char* dir = std::getenv("PYPTO_GOLDEN_REPORT");
  return dir && *dir;
}

std::string html_report_document(const std::string& script, const std::vector<RunRecord>& runs) {
  size_t passed = 0;
  for (const auto& r : runs) passed += verdict(r) == "PASS";
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" << kGenerator
    << "\n<title>" << esc(script) << " - pypto-golden report</title>\n<style>" << kReportStyle
    << "</style>\n</head>\n<body>\n<header><h1>" << esc(script) << "</h1>\n<p class=\"summary\">" << runs.size()
    << " run" << (runs.size() == 1 ? "" : "s") << ", " << passed << " passed &middot; written " << clock_text("%Y-%m-%d %H:%M:%S", false)
    << " by pypto-golden " << PYPTO_GOLDEN_VERSION << "</p></header>\n";
  json data = {{"runs", json::array()}};
  for (size_t i = 0; i < runs.size(); ++i) {
    run_section(h, i, runs[i]);
    data["runs"].push_back(run_json(runs[i]));
  }
  std::string text = data.dump();
  // Inside <script>, "</" could end the element early; JSON reads "<\/" as the same text.
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) text.replace(at, 2, "<\\/");
  h << "<script type=\"application/json\" id=\"pypto-golden-data\">" << text << "</script>\n<script>"
    << kReportScript << "</script>\n</body>\n</html>\n";
  return h.str();
}

void html_report_append(const std::filesystem::path& dir, const std::string& script, const RunRecord& run) {
  std::lock_guard<std::mutex> lock(report_mu);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw ReportFileError("--report: cannot create the directory " + dir.string() +
                          (ec ? " (" + ec.message() + ")" : " (a file of that name is in the way)"));
  const std::filesystem::path file = dir / "report.html";
  auto& runs = process_runs();
  if (runs.empty() && std::filesystem::exists(file)) {  // this process's first report here
    std::ifstream in(file);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (head.find(kGenerator) == std::string::npos)
      throw ReportFileError("--report: " + file.string() +
                            " is not a report pypto-golden wrote; it is kept: choose another directory or remove it");
  }
  runs.push_back(run);
  const std::string page = html_report_document(script, runs);
  try {
    write_file_atomically(file, [&](int fd) { write_all(fd, page.data(), page.size(), file); });
  } catch (const FileWriteError& e) {
    throw ReportFileError(std::string("--report: ") + e.what());
  }
}

}  // namespace pypto_golden
