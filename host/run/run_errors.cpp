#include "run/run_errors.h"

#include "run/stage_log.h"

namespace pypto_golden {

StageInterrupted::StageInterrupted(const std::string& stage, double seconds)
    : std::runtime_error("interrupted by Ctrl-C in stage '" + stage + "' after " +
                         seconds_text(seconds) + "s"),
      stage_(stage) {}

}  // namespace pypto_golden
