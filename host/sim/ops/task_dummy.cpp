// pl.system.task_dummy(deps=[...]): a barrier task that runs nothing and completes once its
// deps have; its id gathers them for later deps=. The IR call is task_dummy(id, deps, line,
// manual): `id` is the site's id, which it returns unless the task graph is recorded
// (sim/task_ids.h); `line` its source line, `manual` whether a pl.manual_scope holds it. As
// PyPTO's runtime does, a barrier none of whose deps names a task submits nothing and is
// "no task" (-1).
#include "sim/device.h"
#include "sim/ops/op_result.h"
#include "sim/task_ids.h"
#include "sim/task_recorder.h"

namespace pypto_golden::sim {
namespace {

Value task_dummy(const OpArgs& a) {
  const int64_t site = a.as_int(a.required(0, "id"), "id");
  std::vector<int64_t> deps;
  collect_task_ids(a.required(1, "deps"), deps);
  TaskRecorder* recorder = graph_recorder(a.device);
  if (!recorder) return Value::from_int(site);
  if (deps.empty()) return Value::from_int(-1);
  const int line = static_cast<int>(a.as_int(a.required(2, "line"), "line"));
  const bool manual = a.as_bool(a.required(3, "manual"), "manual");
  return Value::from_int(recorder->submit(SubmitKind::Dummy, line, a.device->id(), 1, manual, deps));
}

}  // namespace

void register_task_ops(OpTable& t) {
  // Its deps are task ids, not tensors of the task graph.
  t.add(OpDef{"task_dummy", 4, 4, {}, &ops::guarded<task_dummy>, nullptr, -1, 0b11});
}

}  // namespace pypto_golden::sim
