// The HTML report's style sheet and drawing script, inlined into every report.html.
#pragma once

namespace pypto_golden {

extern const char* const kReportStyle;
extern const char* const kReportScript;

}  // namespace pypto_golden
