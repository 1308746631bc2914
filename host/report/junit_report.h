// JUnit XML (`--junit FILE`, PYPTO_GOLDEN_JUNIT): one <testsuite> per script process, one
// <testcase> per golden.run and one per output it validated, in the form CI systems read
// (Jenkins' junit-10.xsd). Several runs of a script, and several scripts, add to one file.
#pragma once

#include "report/report_file_error.h"
#include "report/run_record.h"

#include <filesystem>
#include <string>

namespace pypto_golden {

// Adds `run` to this process's testsuite (named `suite`, the script's file name) in `file`
// and rewrites the file atomically under an exclusive lock: other processes' testsuites in it
// are kept, the <testsuites> totals recomputed. A file that is not such a document (another
// tool's, or damaged) is refused, never overwritten.
void junit_append(const std::filesystem::path& file, const std::string& suite, const RunRecord& run);

// The XML text of a file holding `suites` (each a rendered <testsuite> element) with their
// totals; exposed for the unit tests.
std::string junit_document(const std::string& suites);

// `text` with &, <, >, " and control characters escaped for an attribute or element.
std::string xml_escape(const std::string& text);

}  // namespace pypto_golden
