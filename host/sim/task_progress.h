// How many tasks (pl.at regions) each device has run in this process: what a long dispatch
// shows on its progress line. A relaxed counter per device, one increment per task.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

void count_task(int device_id);

// (device id, tasks run so far) of every device that has run one.
std::vector<std::pair<int, uint64_t>> task_counts();

}  // namespace pypto_golden::sim
