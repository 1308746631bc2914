// A sequential loop whose body is one row-local write, such as
//
//     for r in pl.range(r0, r1, 2):
//         y[r : r + 1, :] = pl.row_expand_add(y[r : r + 1, :], bias[r : r + 1, :])
//
// run as one op over strided views of all its rows instead of one small op per row: the
// per-op cost (windows, argument vectors, dispatch) is most of such a loop's time. The
// values are the loop's, bit for bit: only ops that compute each element from the elements
// at the same place in their operands by one IEEE operation (add, sub, mul, div and their
// row_expand forms) qualify, and the first iteration runs as a plain iteration, so its
// shapes, dtypes and messages are the loop's own. Whatever the batch cannot prove at run
// time (a window leaving its tensor, a read overlapping another row's write, a valid region,
// DFX recording, PYPTO_SIM_NAN_CHECK) leaves the loop to run iteration by iteration, which
// then fails, if it does, at the iteration and with the message it always had.
#pragma once

#include "sim/nodes.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace pypto_golden::sim {

class CallExpr;
class SubscriptExpr;
class WriteStmt;

class RowBatch {
 public:
  // The batch plan of a loop over slot `var` with this body; null when the body's form does
  // not qualify (see above).
  static std::unique_ptr<RowBatch> plan(int var, const Block& body);

  // Runs the `n` iterations var = first, first + step, ... as one op, leaving the last
  // value in the loop variable. False, with nothing run or written, when the run-time
  // conditions do not hold.
  bool run(Frame& frame, int64_t first, int64_t step, int64_t n) const;

 private:
  RowBatch(int var, const WriteStmt& write, const CallExpr& call) : var_(var), write_(write), call_(call) {}

  int var_;
  const WriteStmt& write_;
  const CallExpr& call_;
};

}  // namespace pypto_golden::sim
