#include "sim/statements.h"

#include "sim/comm/comm_domain.h"
#include "sim/device.h"
#include "sim/expressions.h"
#include "sim/hot_thread_local.h"
#include "sim/interrupt.h"
#include "sim/kernel_error.h"
#include "sim/located_error.h"
#include "sim/task_ids.h"
#include "sim/task_progress.h"
#include "sim/task_recorder.h"
#include "sim/task_windows.h"
#include "sim/write_log.h"
#include "tensor/python_repr.h"

#include <set>

namespace pypto_golden::sim {

void AtStmt::exec(Frame& frame) const {
  const int device = frame.device ? frame.device->id() : 0;
  TaskRecorder* recorder = frame.device ? frame.device->recorder() : nullptr;
  if (recorder) {
    run_recorded(frame, *recorder);
  } else {
    if (!deps_.empty()) evaluate_deps(deps_, frame);  // bounds-checks its array reads
    run_block(body_, frame);
  }
  count_task(device);
}

void AtStmt::run_recorded(Frame& frame, TaskRecorder& recorder) const {
  PYPTO_HOT_THREAD_LOCAL int depth = 0;  // regions nested in one on this thread
  const int device = frame.device->id();
  const TaskRecorder::Start start{recorder.now(), frame.device->live_bytes()};
  struct Nest {
    Nest() { ++depth; }
    ~Nest() { --depth; }
  };
  if (!recorder.windows()) {
    if (!deps_.empty()) evaluate_deps(deps_, frame);  // bounds-checks its array reads
    {
      Nest nest;
      run_block(body_, frame);
    }
    recorder.record(name_, line(), device, start, frame.device->live_bytes(), depth, 0, {});
    return;
  }
  // A block of an spmd launch runs the launch's task; a region inside it is a task of its own.
  TaskRecorder::Submit submit{frame.launch, manual_, nullptr};
  LaunchScope in_region(frame, 0);
  std::vector<int64_t> deps;
  if (!deps_.empty()) {
    deps = evaluate_deps(deps_, frame);
    submit.deps = &deps;
  }
  TaskWindowScope windows(recorder, frame, depth, dumps_, no_dep_);
  {
    Nest nest;
    run_block(body_, frame);
  }
  if (!outputs_.empty()) windows.note_outputs(outputs_);
  const int64_t id = windows.record(name_, line(), device, start, frame.device->live_bytes(), submit);
  if (tid_ >= 0) frame.slots[static_cast<size_t>(tid_)] = Value::from_int(id);  // for later tasks' deps=
}

void Stmt::run(Frame& frame) const {
  try {
    exec(frame);
  } catch (const std::exception&) {
    rethrow_located(frame, line_);
  }
}

void run_block(const Block& block, Frame& frame) {
  for (const auto& s : block) {
    s->run(frame);
    if (frame.returned) return;
  }
}

namespace {

CommDomain& host_domain(const Frame& frame, const char* what) {
  CommDomain* d = frame.device != nullptr ? frame.device->comm() : nullptr;
  if (d == nullptr) throw KernelError(std::string(what) + " runs only in a @pl.jit.host program");
  return *d;
}

}  // namespace

void LaunchStmt::exec(Frame& frame) const {
  CommDomain& domain = host_domain(frame, "a chip launch (device=)");
  const int64_t rank = rank_->eval(frame).as_int("device=");
  if (rank < 0 || rank >= domain.world_size()) {
    std::vector<int64_t> ids;
    for (int r = 0; r < domain.world_size(); ++r) ids.push_back(domain.device_id(r));
    throw KernelError(name_ + "(..., device=" + std::to_string(rank) + "): device= is a rank of the host program, which runs on " +
                      std::to_string(domain.world_size()) + " ranks (device ids " + python_list_repr(ids) +
                      "), so it must be in 0.." + std::to_string(domain.world_size() - 1));
  }
  const int r = static_cast<int>(rank);
  const int k = domain.next_launch_index(r);
  if (domain.remote()) {  // the rank's device is in a worker process
    Frame chip = frame;
    const bool bound = bind_arguments(chip);
    domain.launch_remote(r, *this, k, bound ? chip : frame, bound);
    return;
  }
  Frame chip = frame;
  chip.device = &domain.device(r);
  chip.in_parallel = false;
  for (Value& v : chip.slots)
    if (v.is_tensor()) v.tensor = domain.on_rank(v.tensor, r);
  domain.launch(r, [this, chip, r, k]() mutable { run_chip(chip, r, k); });
}

namespace {

void note_storages(const Value& v, std::set<const void*>& out) {
  if (v.is_tensor()) out.insert(v.tensor.storage().data());
  if (v.kind == Value::Kind::Tuple || v.kind == Value::Kind::List)
    for (const Value& item : *v.items) note_storages(item, out);
}

// A statement with an earlier call folded into it (sim/temp_inlining.h) runs `fn`; when
// that fails, the folded call, which ran first when the two were apart, is evaluated (it
// only reads) so that its own failure is the one reported.
template <class Fn>
decltype(auto) folded_first_on_error(const Expr* folded, Frame& frame, Fn&& fn) {
  if (folded == nullptr) return fn();
  try {
    return fn();
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception&) {
    folded->eval(frame);
    throw;
  }
}

}  // namespace

bool LaunchStmt::bind_arguments(Frame& chip) const {
  std::set<const void*> host;
  for (const Value& v : chip.slots) note_storages(v, host);
  try {
    for (size_t i = 0; i < bindings_; ++i) body_[i]->run(chip);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception&) {
    return false;  // the rank reports it, with its rank, as in-process
  }
  for (size_t i = 0; i < bindings_; ++i) {
    const Value& v = chip.slots[static_cast<size_t>(static_cast<const AssignStmt&>(*body_[i]).slot())];
    std::set<const void*> made;
    note_storages(v, made);
    for (const void* storage : made)
      if (host.count(storage) == 0) return false;
  }
  return true;
}

void LaunchStmt::run_chip(Frame& chip, int rank, int k, bool bound) const {
  ChipLaunchScope launch(rank, k, name_);
  for (size_t i = bound ? bindings_ : 0; i < body_.size() && !chip.returned; ++i) body_[i]->run(chip);
}

void JoinStmt::exec(Frame& frame) const { host_domain(frame, "join").join(); }

void BarrierStmt::exec(Frame& frame) const {
  if (frame.in_parallel)
    throw KernelError("pl.system.syncall is supported directly in the body of a pl.spmd / pl.parallel loop, not "
                      "inside an if or another loop there: the simulator runs the parts of the body between "
                      "barriers one after another, each for every iteration");
}

ForStmt::ForStmt(int line, LoopKind kind, int var, ExprPtr start, ExprPtr stop, ExprPtr step, Block body,
                 bool ordered)
    : Stmt(line), kind_(kind), var_(var), start_(std::move(start)), stop_(std::move(stop)), step_(std::move(step)),
      body_(std::move(body)), ordered_(ordered) {
  if (kind_ != LoopKind::Parallel && kind_ != LoopKind::Spmd) {
    row_batch_ = RowBatch::plan(var_, body_);
    return;
  }
  for (size_t k = 0; k < body_.size(); ++k)
    if (dynamic_cast<const BarrierStmt*>(body_[k].get())) phase_ends_.push_back(k);
  if (!phase_ends_.empty()) phase_ends_.push_back(body_.size());
}

void ForStmt::set_task(int tid, std::vector<ExprPtr> deps, bool manual) {
  tid_ = tid;
  deps_ = std::move(deps);
  manual_ = manual;
}

int64_t ForStmt::submit_launch(Frame& frame, int64_t trips) const {
  if (kind_ != LoopKind::Spmd) return 0;
  TaskRecorder* recorder = graph_recorder(frame);
  if (!recorder) {
    if (!deps_.empty()) evaluate_deps(deps_, frame);  // bounds-checks its array reads
    return 0;
  }
  const int64_t id = recorder->submit(SubmitKind::Launch, line(), frame.device->id(), trips, manual_,
                                      evaluate_deps(deps_, frame));
  if (tid_ >= 0) frame.slots[static_cast<size_t>(tid_)] = Value::from_int(id);
  return id;
}

namespace {

// The variable vectors of finished iterations, kept per thread for the next iteration's
// copy: with a dozen or more variables a copy is over a kilobyte, a size the allocator
// serves slowly, and a kernel makes one for every parallel iteration and spmd block.
PYPTO_HOT_THREAD_LOCAL std::vector<std::vector<Value>> spare_slots;
constexpr size_t kSpareSlots = 16;

std::vector<Value> take_spare_slots() {
  if (spare_slots.empty()) return {};
  std::vector<Value> v = std::move(spare_slots.back());
  spare_slots.pop_back();
  return v;
}

// Ends an iteration's frame: its values go now (tensors released), its vector, every
// element None, to the spares (Frame::copy_into's `only` form then sets just the few it copies).
void recycle(Frame& local) {
  for (Value& v : local.slots)
    if (v.kind != Value::Kind::None || v.tensor.defined()) v = Value{};
  if (spare_slots.size() < kSpareSlots) spare_slots.push_back(std::move(local.slots));
}

}  // namespace

// The variables of one iteration of a parallel / spmd loop: its own copy of the frame's,
// with the loop variable set to `index`.
Frame ForStmt::iteration_frame(const Frame& frame, int64_t index) const {
  const TaskRecorder* recorder = frame.device != nullptr ? frame.device->recorder() : nullptr;
  const bool all = !live_in_ || (recorder != nullptr && recorder->windows());
  Frame local = frame.copy_into(take_spare_slots(), all ? nullptr : &*live_in_);
  local.slots[static_cast<size_t>(var_)] = Value::from_int(index);
  local.active_loop_vars.push_back(var_);
  local.in_parallel = true;
  return local;
}

// Each phase runs for every iteration before the next starts; an iteration keeps its own
// variables from one phase to the next.
void ForStmt::run_phases(Frame& frame, int64_t start, int64_t step, int64_t trips, TaskIdJoins& joins) const {
  std::vector<Frame> locals;
  locals.reserve(static_cast<size_t>(trips));
  for (int64_t k = 0; k < trips; ++k) locals.push_back(iteration_frame(frame, start + k * step));
  size_t begin = 0;
  for (size_t end : phase_ends_) {
    auto phase = [&](int64_t k) {
      check_interrupt();
      Frame& local = locals[static_cast<size_t>(k)];
      for (size_t s = begin; s < end && !local.returned; ++s) body_[s]->run(local);
    };
    if (ordered_) {
      for (int64_t k = 0; k < trips; ++k) phase(k);
    } else {
      Device& device = *frame.device;
      device.pool().parallel_for(trips, phase, device.iteration_order(trips));
    }
    begin = end + 1;  // past the barrier
  }
  for (int64_t k = 0; k < trips; ++k) {
    joins.collect(k, locals[static_cast<size_t>(k)]);
    recycle(locals[static_cast<size_t>(k)]);
  }
}

void ForStmt::exec(Frame& frame) const {
  const int64_t start = eval_int(*start_, frame, "the loop start");
  const int64_t stop = eval_int(*stop_, frame, "the loop stop");
  const int64_t step = eval_int(*step_, frame, "the loop step");
  if (step == 0) throw KernelError("the loop step must not be zero");
  int64_t trips = 0;
  if (step > 0 && stop > start) trips = (stop - start + step - 1) / step;
  if (step < 0 && stop < start) trips = (start - stop + (-step) - 1) / (-step);
  const size_t var = static_cast<size_t>(var_);

  if (kind_ == LoopKind::Parallel || kind_ == LoopKind::Spmd) {
    // The launch's id reaches its blocks through their frames (iteration_frame).
    LaunchScope launch(frame, kind_ == LoopKind::Spmd ? submit_launch(frame, trips) : frame.launch);
    TaskIdJoins joins(joins_, frame, trips);
    if (!phase_ends_.empty()) {
      run_phases(frame, start, step, trips, joins);
    } else {
      auto iteration = [&](int64_t k) {
        check_interrupt();
        Frame local = iteration_frame(frame, start + k * step);
        run_block(body_, local);
        joins.collect(k, local);
        recycle(local);
      };
      if (ordered_) {
        // Iterations linked through an array run one after another, so a dependency of one
        // on an earlier one is met.
        for (int64_t k = 0; k < trips; ++k) iteration(k);
      } else {
        Device& device = *frame.device;
        device.pool().parallel_for(trips, iteration, device.iteration_order(trips));
      }
    }
    joins.bind(frame, line());
    return;
  }

  frame.active_loop_vars.push_back(var_);
  for (int64_t k = 0; k < trips; ++k) {
    check_interrupt();
    frame.slots[var] = Value::from_int(start + k * step);
    run_block(body_, frame);
    if (frame.returned) break;
    // The first iteration ran as itself; the rest may run as one op.
    if (k == 0 && row_batch_ && row_batch_->run(frame, start + step, step, trips - 1)) break;
  }
  frame.active_loop_vars.pop_back();
}

void AssignStmt::exec(Frame& frame) const {
  folded_first_on_error(folded_, frame, [&] { frame.slots[static_cast<size_t>(slot_)] = value_->eval(frame); });
}

void UnpackStmt::exec(Frame& frame) const {
  Value v = value_->eval(frame);
  if ((v.kind != Value::Kind::Tuple && v.kind != Value::Kind::List) || v.items->size() != slots_.size())
    throw KernelError("cannot unpack " + v.describe() + " into " + std::to_string(slots_.size()) + " names");
  for (size_t k = 0; k < slots_.size(); ++k) frame.slots[static_cast<size_t>(slots_[k])] = (*v.items)[k];
}

WriteStmt::WriteStmt(int line, int target, std::vector<IndexItem> items, std::string text, ExprPtr value)
    : Stmt(line), target_(target), items_(std::move(items)), text_(std::move(text)), value_(std::move(value)) {
  if (const auto* var = dynamic_cast<const VarExpr*>(value_.get())) value_slot_ = var->slot();
}

void WriteStmt::exec(Frame& frame) const {
  const Value& target = frame.slots[static_cast<size_t>(target_)];
  const Window w = folded_first_on_error(folded_, frame, [&] {
    if (!target.is_tensor()) target.as_tensor(("the target of " + text_).c_str());  // throws, naming it
    Window resolved = resolve_window(target, items_, frame, text_);
    if (resolved.all_indexed)
      throw KernelError(text_ + " = ... writes one element; use pl.write for element writes");
    return resolved;
  });
  const WrittenCorner written =
      w.overhangs() ? assign_to_window(value_->eval(frame), w, text_) : value_->eval_into(frame, w.view);
  if (frame.device != nullptr)
    if (WriteLog* log = frame.device->write_log()) log->note(w.view, written);
  // A plain variable's tensor is read whole (x[...] = t); a window or a call's result
  // recorded its own reads.
  if (value_slot_ >= 0) {
    const Value& v = frame.slots[static_cast<size_t>(value_slot_)];
    if (v.kind == Value::Kind::Tensor) note_read(v.tensor, {}, {});
  }
  note_write(w.view, {}, {});  // after the value's reads, in the order the task does them
}

void IfStmt::exec(Frame& frame) const {
  if (cond_->eval(frame).truthy("the if condition")) run_block(then_, frame);
  else run_block(else_, frame);
}

void ReturnStmt::exec(Frame& frame) const {
  if (values_.size() == 1) {
    frame.return_value = values_[0]->eval(frame);
  } else {
    std::vector<Value> items;
    for (const auto& v : values_) items.push_back(v->eval(frame));
    frame.return_value = Value::tuple(std::move(items));
  }
  frame.returned = true;
}

}  // namespace pypto_golden::sim
