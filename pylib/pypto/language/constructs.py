"""The frontend's own constructs: loop iterators, `with` regions and the functions the
compiler handles itself (they never reach the simulator as ops). Runtime ops live in
op_table.py; both tables are turned into `pl.*` placeholders by placeholders.py."""

# Loop iterators usable as `for v in pl.<name>(start?, stop, step?)`:
# name -> (IR `kind`, accepted keywords).
# `chunk=` / `chunk_policy=` (PyPTO before #1895 removed them) split a loop into chunks of
# the same iterations: a scheduling choice, checked and otherwise without effect here.
LOOPS = {
    "range": ("range", ("init_values", "chunk", "chunk_policy")),
    "parallel": ("parallel", ("chunk", "chunk_policy")),
    "unroll": ("unroll", ()),
    "pipeline": ("pipeline", ("stage", "init_values")),
    # pl.spmd(core_num) takes exactly one positional argument.
    "spmd": ("spmd", ("sync_start", "name_hint", "optimizations", "deps",
                      "allow_early_resolve")),
    # pl.split_aiv(2, mode=...): one iteration per AIV lane (aiv_split.py).
    "split_aiv": ("parallel", ("mode",)),
}
CHUNK_POLICIES = ("guarded", "leading_full")
LOOP_PARAMS = ("start", "stop", "step")

# Region context managers usable as `with pl.<name>(...)`: name -> accepted keywords.
# `at` marks an InCore region; `spmd` runs its body once per block; the others are
# scheduling hints with no functional effect. `deps=` (task ids a task waits for) and
# `no_dep_args=` (tensors left out of automatic dependency tracking) are checked, then met
# by running tasks in program order.
REGIONS = {
    "at": ("level", "name_hint", "optimizations", "deps", "no_dep_args", "allow_early_resolve",
           "dumps"),
    "spmd": LOOPS["spmd"][1],
    "scope": ("name_hint", "manual_dep", "mode"),
    "manual_scope": ("name_hint",),
    "cluster": ("name_hint",),
}

# Functions the frontend evaluates itself (pl.<name>).
SPECIALS = (
    "yield_",           # loop-carried values / if-else results
    "get_block_idx",    # the block index inside pl.spmd
    "get_block_num",    # the block count of the enclosing pl.spmd
    "get_subblock_idx",  # AIV lane: the pl.split_aiv lane, 0 outside one
    "aiv_shard",        # a lane's share of a cube result inside pl.split_aiv
    "aic_gather",       # the lanes' shares rejoined for the cube (not simulated)
    "spmd_submit",      # `out, tid = pl.spmd_submit(self.kernel, ..., core_num=N)`
    "no_dep",           # scheduling hints: return their argument
    "dump_tag",
    "static_assert",    # compile-time checks and prints
    "static_print",
    "const",            # typed literal pl.const(value, dtype)
)

# pl.system.<name> without a value: syncall (a barrier between the phases of a parallel
# loop's body, statements.py) and cache plumbing (no functional effect in the simulator).
SYSTEM_NOOPS = ("syncall", "fence", "cacheinvalid")
# pl.system.<name> that give a task id: task_dummy(deps=[...]) (a barrier task that only
# waits) and task_invalid() ("no task", what None means in deps=).
SYSTEM_TASKS = ("task_dummy", "task_invalid")

# pl.prefetch.<name>: GM -> L2 cache warming. The data is already where a read finds it on
# the simulator, so these only check their arguments (prefetch.py).
PREFETCH = ("make_context", "async_prefetch", "session", "wait")

# Namespaced spellings whose op has another name at top level: (namespace, attr) -> op.
# Every other `pl.tile.X` / `pl.tensor.X` is the op `X` itself.
NAMESPACE_ALIASES = {
    ("tensor", "create"): "create_tensor",
    ("tile", "create"): "create_tile",
    ("tensor", "ci"): "arange",
    ("tile", "ci"): "arange",
    ("tensor", "create_tensor"): "create_tensor",
    ("array", "create"): "array_create",
    ("array", "get_element"): "array_get_element",
    ("array", "update_element"): "array_update_element",
}

# pl.tile.X spellings whose meaning differs from pl.X: PyPTO's tile.matmul always gives the
# Cube accumulator's dtype (FP32 for float operands, INT32 for integer ones), where the unified
# pl.matmul on tensors gives out_dtype, else the operands' dtype.
TILE_FORMS = {"matmul": "tile_matmul"}

# Ops the frontend knows even before the op table has a row for them: `dim` folds to a
# constant for static extents and is a runtime op only for pl.dynamic dims.
FRONTEND_OPS = ("dim",)
