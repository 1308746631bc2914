// What a rank worker sends back of the tasks it recorded in a dispatch, for the DFX outputs
// of a run whose ranks are in worker processes: a recorder without windows (the swimlane,
// the scope statistics). The host adds them to its own recorder, on its clock.
#pragma once

#include <string>

namespace pypto_golden::sim {
class TaskRecorder;
}

namespace pypto_golden::ranks {

// `recorder`'s tasks (their windows left out) as a text.
std::string recorded_tasks_text(const sim::TaskRecorder& recorder);

// Adds the tasks of `text` (recorded_tasks_text's, from `rank`) to `into`, their times moved
// from the sender's recorder's clock to its own. GroupError for a text that is not one.
void add_recorded_tasks(sim::TaskRecorder& into, const std::string& text, int rank);

}  // namespace pypto_golden::ranks
