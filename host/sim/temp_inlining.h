// Temporaries the loader folds into the statement that reads them. In
//     once = pl.add(x[r : r + 8, :], b)
//     y[r : r + 8, :] = pl.add(once, b)
// `once` is made, read once by the next statement and never again: the loader builds that
// statement as y[...] = pl.add(pl.add(x[...], b), b), which runs as one FP32 row nest
// (sim/row_nest.h) straight into y's window, with no tile for `once`. The values are the
// same bits (a nest computes what its calls would one by one) and a failure of the folded
// call still names its own line. A `t = pl.load(...)` read so folds into the call that
// reads it, where it is a transient load (CallExpr): a view of what it loads, not a copy.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <set>

namespace pypto_golden::sim {

// The slots of `function` (IR.md's FUNCTION object) that are not parameters, assigned by
// exactly one `assign`, read by exactly one `var` expression and named nowhere else (no
// write target, loop variable, unpack, task id, join, dump or no_dep list). None when the
// JSON nests deeper than `max_depth` levels (a file the loader refuses; the walk must not
// overflow the stack first).
std::set<int> single_use_slots(const nlohmann::json& function, int params, int max_depth);

// When statement `def` is `slot = op(a, b)` for one of `temps`, with op an FP32 row-nest op
// (add, sub, mul, div, their row_ / col_expand forms), and `use`, the statement after it, an
// assignment or a write of another such call whose first operand, or its first operand's
// first operand and so on, is that slot's variable: the call (within `use`) whose first
// argument it is. The same for `slot = pl.load(...)` (keywords included) and a call of any op,
// its first arguments followed through calls of any op. Else null, malformed JSON included
// (the statements report it when built). What the statement evaluates first is then `def`'s
// call, as when the two were apart.
const nlohmann::json* folds_into_next(const nlohmann::json& def, const nlohmann::json& use, const std::set<int>& temps);

// Where statement k of the block `stmts` folds: the index of the statement it folds into and
// the call there (folds_into_next), or nullopt. Statements between them may only be scalar
// assignments (`lane_r0 = r0 + aiv_id * 16`: constants, variables, unary and binary
// operators; they write no memory) of variables statement k does not read; when one of them
// fails, the statement running it evaluates the folded call first (AssignStmt::set_folded),
// so the error reported is still the earlier statement's.
struct FoldPlan {
  size_t use;
  const nlohmann::json* into;
};
std::optional<FoldPlan> plan_fold(const nlohmann::json& stmts, size_t k, const std::set<int>& temps);

}  // namespace pypto_golden::sim
