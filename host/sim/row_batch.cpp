#include "sim/row_batch.h"

#include "sim/device.h"
#include "sim/expressions.h"
#include "sim/interrupt.h"
#include "sim/kernel_error.h"
#include "sim/statements.h"
#include "sim/strided_view.h"
#include "sim/window.h"
#include "sim/write_log.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <optional>
#include <string>

namespace pypto_golden::sim {
namespace {

// Ops whose every result element is the IEEE operation on the operand elements at the same
// place (or the row's one value, for row_expand): the same bits in any batch and any loop.
// Not maximum / minimum: ATen's vector and scalar loops order -0.0 and 0.0 differently, so
// a batch, taking the other loop, could change the sign of a zero.
bool row_local(const std::string& op) {
  static const char* const kOps[] = {"add", "sub", "mul", "div", "row_expand_add", "row_expand_sub",
                                     "row_expand_mul", "row_expand_div"};
  for (const char* name : kOps)
    if (op == name) return true;
  return false;
}

// Built only of constants, variables other than `var` and arithmetic on them: the same in
// every iteration (the body, one write, assigns no variable).
bool invariant(const Expr& e, int var) {
  if (dynamic_cast<const ConstExpr*>(&e)) return true;
  if (const auto* v = dynamic_cast<const VarExpr*>(&e)) return v->slot() != var;
  if (const auto* b = dynamic_cast<const BinOpExpr*>(&e)) return invariant(b->lhs(), var) && invariant(b->rhs(), var);
  return false;
}

// An affine function of `var`: sums and differences of invariants, `var` and products of
// an invariant with such a function. Two evaluations then tell it everywhere.
bool affine(const Expr& e, int var) {
  if (invariant(e, var)) return true;
  if (const auto* v = dynamic_cast<const VarExpr*>(&e)) return v->slot() == var;
  const auto* b = dynamic_cast<const BinOpExpr*>(&e);
  if (b == nullptr) return false;
  switch (b->op()) {
    case BinOp::Add:
    case BinOp::Sub: return affine(b->lhs(), var) && affine(b->rhs(), var);
    case BinOp::Mul:
      return (invariant(b->lhs(), var) && affine(b->rhs(), var)) || (affine(b->lhs(), var) && invariant(b->rhs(), var));
    default: return false;
  }
}

// A window whose first axis moves with `var` and whose others stay: every item a slice (no
// axis dropped), the first affine in `var`, the rest invariant.
bool rows_move(const std::vector<IndexItem>& items, int var) {
  if (items.empty()) return false;
  for (size_t k = 0; k < items.size(); ++k) {
    const IndexItem& item = items[k];
    if (!item.is_slice) return false;
    for (const ExprPtr* bound : {&item.lo, &item.hi})
      if (*bound && !(k == 0 ? affine(**bound, var) : invariant(**bound, var))) return false;
  }
  return true;
}

// The windows of all n iterations as one view of `base`, given where the first and the
// last lie, or nullopt when they are not one strided view inside the tensor.
std::optional<at::Tensor> batched_view(const at::Tensor& base, const WindowGeometry& head,
                                       const WindowGeometry& tail, int64_t n, bool rows_apart) {
  // Both ends inside the tensor and of one shape: the bounds are affine, so every
  // iteration's window is inside and of that shape.
  if (head.overhang || tail.overhang || head.sizes != tail.sizes || head.sizes.empty()) return std::nullopt;
  const int64_t span = tail.offset - head.offset;
  if (span % (n - 1) != 0) return std::nullopt;
  const int64_t step = span / (n - 1);  // elements from one iteration's window to the next
  c10::SmallVector<int64_t, 6> sizes = head.sizes, strides = head.strides;
  if (sizes[0] == 1 && step >= (rows_apart ? 1 : 0)) {
    sizes[0] = n;  // one row an iteration, `step` apart (0: the same row each time, read only)
    strides[0] = step;
  } else if (sizes[0] > 1 && step == sizes[0] * strides[0]) {
    sizes[0] *= n;  // blocks of rows, one after another
  } else {
    return std::nullopt;
  }
  return strided_view(base, sizes, strides, head.offset);
}

// The windows base[items] of all n iterations as one view, or nullopt when they are not one
// strided view inside the tensor. `rows_apart`: each iteration's rows must follow the last's
// (the target), not repeat them.
std::optional<at::Tensor> batched_window(const Value& base, const std::vector<IndexItem>& items,
                                         const std::string& text, Frame& frame, int var, int64_t first,
                                         int64_t last, int64_t n, bool rows_apart) {
  if (!base.is_tensor() || !base.fully_valid() || !at::isFloatingType(base.tensor.scalar_type())) return std::nullopt;
  Value& slot = frame.slots[static_cast<size_t>(var)];
  try {
    slot = Value::from_int(first);  // no views of the two ends: only where they lie
    const WindowGeometry head = window_geometry(base, items, frame, text);
    slot = Value::from_int(last);
    const WindowGeometry tail = window_geometry(base, items, frame, text);
    return batched_view(base.tensor, head, tail, n, rows_apart);
  } catch (const KernelError&) {
    return std::nullopt;  // the loop reaches that iteration and reports it
  } catch (const c10::Error&) {
    return std::nullopt;
  }
}

// Whether no two elements of the view share memory: taking the axes by growing stride,
// each stride steps past everything the axes before it span. (ATen's has_internal_overlap
// answers "too hard" for any view that is not dense.)
bool elements_disjoint(const at::Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> axes;  // (stride, size) of the axes of size > 1
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1) axes.emplace_back(t.stride(d), t.size(d));
  std::sort(axes.begin(), axes.end());
  int64_t span = 0;  // the last element's offset over the axes so far
  for (const auto& [stride, size] : axes) {
    if (stride <= span) return false;
    span += (size - 1) * stride;
  }
  return true;
}

}  // namespace

std::unique_ptr<RowBatch> RowBatch::plan(int var, const Block& body) {
  if (body.size() != 1) return nullptr;
  const auto* write = dynamic_cast<const WriteStmt*>(body.front().get());
  if (write == nullptr || write->target() == var || !rows_move(write->items(), var)) return nullptr;
  const auto* call = dynamic_cast<const CallExpr*>(&write->value());
  if (call == nullptr || call->has_kwargs() || call->args().size() != 2 || !row_local(call->op().name)) return nullptr;
  bool windows = false;
  for (const ExprPtr& arg : call->args()) {
    if (const auto* sub = dynamic_cast<const SubscriptExpr*>(arg.get())) {
      if (sub->base_slot() < 0 || sub->base_slot() == var || !rows_move(sub->items(), var)) return nullptr;
      windows = true;
    } else if (!invariant(*arg, var)) {
      return nullptr;
    }
  }
  if (!windows) return nullptr;
  return std::unique_ptr<RowBatch>(new RowBatch(var, *write, *call));
}

bool RowBatch::run(Frame& frame, int64_t first, int64_t step, int64_t n) const {
  if (n < 2) return false;
  Device* device = frame.device;
  if (device != nullptr && (device->recorder() != nullptr || device->options().nan_check)) return false;
  const int64_t last = first + (n - 1) * step;
  Value& slot = frame.slots[static_cast<size_t>(var_)];
  const Value before = slot;
  const auto give_up = [&] {
    slot = before;
    return false;
  };

  const Value& target = frame.slots[static_cast<size_t>(write_.target())];
  std::optional<at::Tensor> dst =
      batched_window(target, write_.items(), write_.text(), frame, var_, first, last, n, true);
  if (!dst || !elements_disjoint(*dst)) return give_up();

  OpArgs args;
  args.op = call_.op().name.c_str();
  args.device = device;
  args.positional.reserve(call_.args().size());
  for (const ExprPtr& arg : call_.args()) {
    if (const auto* sub = dynamic_cast<const SubscriptExpr*>(arg.get())) {
      const Value& base = frame.slots[static_cast<size_t>(sub->base_slot())];
      std::optional<at::Tensor> view =
          batched_window(base, sub->items(), sub->text(), frame, var_, first, last, n, false);
      // Of the target's rank and rows, so that it lines up with them as in each iteration
      // (not broadcast across the batch); and a read of the rows being written must be of
      // exactly those rows: row r's result then depends on row r alone, as in the loop.
      if (!view || view->dim() != dst->dim() || view->size(0) != dst->size(0) ||
          (shares_memory(*view, *dst) && !same_view(*view, *dst)))
        return give_up();
      args.positional.push_back(Value::from_tensor(*view));
    } else {
      Value v = arg->eval(frame);
      if (!v.is_scalar()) return give_up();
      args.positional.push_back(std::move(v));
    }
  }

  check_interrupt();
  slot = Value::from_int(first);  // what an unexpected failure names
  const OpDef& op = call_.op();
  const WrittenCorner written = op.into ? op.into(args, *dst) : assign_into(op.fn(args), *dst);
  if (device != nullptr)
    if (WriteLog* log = device->write_log()) log->note(*dst, written);
  slot = Value::from_int(last);
  return true;
}

}  // namespace pypto_golden::sim
