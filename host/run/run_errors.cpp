#include "run/run_errors.h"

#include "run/stage_log.h"
#include "sim/interrupt.h"

namespace pypto_golden {

StageInterrupted::StageInterrupted(const std::string& stage, double seconds)
    : std::runtime_error(std::string(sim::terminated() ? "terminated by SIGTERM" : "interrupted by Ctrl-C") +
                         " in stage '" + stage + "' after " +
                         seconds_text(seconds) + "s"),
      stage_(stage) {}

}  // namespace pypto_golden
