// The HTML report (--report DIR, PYPTO_GOLDEN_REPORT=DIR): one self-contained report.html
// per script process (no network needed to view it) holding each golden.run of the process:
// its stages with their times, each output's verdict with its gate and tolerance, for each
// failing output a heatmap of |actual - expected| with the worst cells and the never-written
// elements marked and a histogram of the differences, the benchmark's distribution, and the
// chip swimlane when recorded. Tables are HTML; the pictures are drawn by the page's script
// on canvases from the data embedded in it.
#pragma once

#include "report/report_file_error.h"
#include "report/run_record.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pypto_golden {

// The swimlane picture shows at most this many tasks (the first ones).
inline constexpr size_t kReportSwimlaneTasks = 20000;

// Whether PYPTO_GOLDEN_REPORT names a directory: the pipeline then keeps what the pictures need.
bool html_report_requested();

// Adds `run` to this process's report and rewrites DIR/report.html atomically. A
// report.html pypto-golden did not write is refused (ReportFileError), never replaced.
void html_report_append(const std::filesystem::path& dir, const std::string& script, const RunRecord& run);

// The page for `runs` of `script`; exposed for the unit tests.
std::string html_report_document(const std::string& script, const std::vector<RunRecord>& runs);

}  // namespace pypto_golden
