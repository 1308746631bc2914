"""Manual dependencies in the bundled frontend: pl.TASK_ID / pl.TaskId, task ids bound by
`with ... as tid` and pl.system.task_dummy, deps= / no_dep_args= on pl.at / pl.spmd,
pl.manual_scope / pl.scope(mode=), pl.Array / pl.array.create with arr[i] reads and
arr[i] = v writes, and the `ordered` mark of parallel loops linked through an array."""

import pytest
import torch

import pypto.language as pl
from pypto.compiler import ir_text
from pypto.jit import KernelCompileError
from test_frontend import first_line, line_of, load, var


def call(op, *args):
    return {"e": "call", "op": op, "args": list(args), "kwargs": {}}


def text_of(prog):
    return ir_text.program_text(prog.program).split("\n", 1)[1]


ACCEPTED = """\
import pypto.language as pl

N = 4


@pl.jit.inline
def finish(late: pl.Scalar[pl.TASK_ID], done: pl.Array[1, pl.TASK_ID], prev: pl.TaskId):
    done[0] = pl.system.task_dummy(deps=[late, prev])


@pl.jit
def k(x: pl.Tensor[[64], pl.FP32], y: pl.Out[pl.Tensor[[64], pl.FP32]]):
    tids = pl.array.create(N, pl.TASK_ID)
    late = pl.system.task_dummy(deps=[])
    done = pl.array.create(1, pl.TASK_ID)
    with pl.manual_scope():
        for i in pl.parallel(N):
            with pl.at(level=pl.Level.CORE_GROUP, deps=[late, None]) as t:
                y[i * 16 : i * 16 + 16] = pl.add(x[i * 16 : i * 16 + 16], 1.0)
            tids[i] = t
    with pl.scope(mode=pl.ScopeMode.MANUAL):
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[j] for j in range(N) if j != 1],
                   no_dep_args=[x]) as t3:
            y[0:16] = pl.add(y[0:16], 1.0)
    finish(t3, done, pl.system.task_invalid())
    with pl.spmd(2, deps=[done[0], t3]) as t4:
        pass
    fence = pl.system.task_dummy(deps=[tids])
    return y
"""


def test_accepted_forms_and_their_ir(tmp_path, builds):
    mod, _ = load(tmp_path, ACCEPTED)
    prog = mod.k.compile(torch.zeros(64), torch.zeros(64))
    # A task binds its own id when the task graph is recorded (until then its site's);
    # deps= are the task's, evaluated when it is submitted; a barrier is a call.
    assert text_of(prog).splitlines()[3:] == [
        "   13 |   tids = array_create(4, task_id)",
        "   14 |   late = task_dummy(1:task_id, [], 14, False)",
        "   15 |   done = array_create(1, task_id)",
        "   17 |   for i in parallel(0, 4, 1):  # joins t (2)",
        "   18 |     t = 2:task_id",
        "   18 |     at as t deps=[late] manual:",
        "   19 |       y[i * 16:(i * 16) + 16] = add(x[i * 16:(i * 16) + 16], 1.0)",
        "   20 |     array_update_element(tids, i, t)",
        "   22 |   t3 = 3:task_id",
        "   22 |   at as t3 deps=[array_get_element(tids, 0), array_get_element(tids, 2), "
        "array_get_element(tids, 3)] no_dep=[x] manual:",
        "   24 |     y[0:16] = add(y[0:16], 1.0)",
        "    8 |   array_update_element(done, 0, task_dummy(4:task_id, [t3], 8, False))",
        "   26 |   t4 = 5:task_id",
        "   26 |   for block_idx in spmd(0, 2, 1) as t4 deps=[array_get_element(done, 0), t3]:",
        "   26 |     pass",
        "   28 |   fence = task_dummy(6:task_id, [tids], 28, False)",
        "   29 |   return y",
    ]
    fn = prog.program["functions"][0]
    assert "ordered" not in fn["body"][3]  # each iteration writes its own slot, none reads
    assert fn["body"][3]["body"][2] == {
        "s": "expr", "line": 20, "value": call("array_update_element", var(2), var(5), var(6))}


def test_the_names_exist_as_in_pypto():
    assert pl.TaskId.dtype is pl.TASK_ID and str(pl.TASK_ID) == "task_id"
    assert pl.Array[4, pl.INT32].extent == 4
    assert pl.ScopeMode.MANUAL is not pl.ScopeMode.AUTO
    assert sorted(dir(pl.array)) == ["create", "get_element", "update_element"]
    with pytest.raises(TypeError, match=r"pl.Array requires \[extent, dtype\] notation"):
        pl.Array[4]


ORDERED = """\
import pypto.language as pl


@pl.jit
def k(x: pl.Tensor[[64], pl.FP32], y: pl.Out[pl.Tensor[[64], pl.FP32]]):
    tids = pl.array.create(4, pl.TASK_ID)
    count = pl.array.create(1, pl.INT32)
    for i in pl.parallel(4):
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[pl.max(i - 1, 0)]]) as t:
            y[i * 16 : i * 16 + 16] = pl.add(x[i * 16 : i * 16 + 16], 1.0)
        tids[i] = t
    for j in pl.parallel(4):
        count[0] = count[0] + 1
    for b in pl.spmd(2):
        mine = pl.array.create(2, pl.INT32)
        mine[0] = mine[1] + 1
    return y
"""


def test_parallel_loops_linked_through_an_array_are_ordered(tmp_path, builds):
    mod, _ = load(tmp_path, ORDERED)
    body = mod.k.compile(torch.zeros(64), torch.zeros(64)).program["functions"][0]["body"]
    loops = [s for s in body if s["s"] == "for"]
    # A dep on the previous iteration's task and a counter carried through the loop are
    # read and written across iterations; an array each iteration creates is its own.
    assert [s.get("ordered", False) for s in loops] == [True, True, False]


HEAD = """\
import pypto.language as pl


@pl.jit.inline
def helper(t: pl.TaskId):
    pass


@pl.jit
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]):
    tids = pl.array.create(4, pl.TASK_ID)
    ints = pl.array.create(4, pl.INT32)
    with pl.at(level=pl.Level.CORE_GROUP) as tid:
        pass
"""

ERRORS = [
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=tid):\n        pass",
     "pl.at() deps= must be a list / tuple / comprehension of TaskId values, got 'tid'"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[x]):\n        pass",
     "pl.at() deps= entries must be a TaskId variable, a TASK_ID array element (e.g. `arr[i]`), "
     "or None, got 'x' (a tensor)"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[ints[0]]):\n        pass",
     "pl.at() deps= entries must be a TaskId variable, a TASK_ID array element (e.g. `arr[i]`), "
     "or None, got 'ints[0]' (a int32 scalar)"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[n]):\n        pass",
     "pl.at() deps= entries must be a TaskId variable, a TASK_ID array element (e.g. `arr[i]`), "
     "or None, got 'n' (a int64 scalar)"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[tids, tids[0]]):\n        pass",
     "pl.at() deps= cannot mix a whole TASK_ID array ('tids') with per-element entries "
     "('tids[0]'); pass the array alone or index it slot by slot"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[i] for i in pl.range(4)]):\n        pass",
     "pl.at() deps= comprehension iterable is a DSL loop ('pl.range(4)'); cannot unroll it at "
     "compile time, use Python's range(...)"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[i] for i in range(n)]):\n        pass",
     "pl.at() deps= comprehension iterable 'range(n)' depends on a runtime value; cannot unroll "
     "it at compile time"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[i] for i in range(4) if i < n]):\n"
     "        pass",
     "pl.at() deps= comprehension filter depends on a runtime value; cannot unroll it at "
     "compile time"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[i] for i in range(2) for j in "
     "range(2)]):\n        pass",
     "pl.at() deps= comprehension supports a single `for` clause"),
    ("with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[tid]):\n        pass",
     "pl.at() no_dep_args= entries must be tensor names, got 'tid' (a task_id scalar)"),
    ("with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=x):\n        pass",
     "pl.at() no_dep_args= must be a list of tensor names, got 'x'"),
    ("with pl.spmd(2, deps=[tid]):\n        pass",
     "pl.spmd() does not accept 'deps=' here: without 'as tid' it captures no task id; use "
     "'with pl.spmd(n, deps=[...]) as tid:'"),
    ("for b in pl.spmd(2, deps=[tid]):\n        pass",
     "pl.spmd() does not accept 'deps=' here: the for-form captures no task id; use "
     "'with pl.spmd(n, deps=[...]) as tid:'"),
    ("t = pl.system.task_dummy()",
     "pl.system.task_dummy requires keyword argument 'deps' (use pl.system.task_dummy(deps=[]) "
     "for an empty barrier)"),
    ("t = pl.system.task_dummy([tid])", "pl.system.task_dummy must not use positional arguments"),
    ("t = pl.system.task_dummy(deps=[tid], after=1)",
     "pl.system.task_dummy does not accept keyword argument 'after'; use "
     "pl.system.task_dummy(deps=[task_id])"),
    ("t = pl.system.task_dummy(deps=[3])",
     "pl.system.task_dummy deps= entries must be a TaskId variable, a TASK_ID array element "
     "(e.g. `arr[i]`), or None, got '3' (a int64 scalar)"),
    ("with pl.scope(mode=1):\n        pass",
     "pl.scope(): mode must be a pl.ScopeMode member (AUTO or MANUAL), got '1'"),
    ("with pl.manual_scope():\n        with pl.manual_scope():\n            pass",
     "a manual scope may not be nested inside another manual scope"),
    ("with pl.manual_scope():\n        with pl.scope():\n            pass",
     "an AUTO scope may not be nested inside a manual scope"),
    ("with pl.scope() as s:\n        pass",
     "pl.scope() gives no task id; only 'with pl.at(...) as tid' and 'with pl.spmd(...) as "
     "tid' bind one"),
    ("t = tid + 1", "'tid + 1': a task id (pl.TASK_ID) cannot be used in arithmetic"),
    ("t = ints + 1", "'ints + 1': a pl.Array cannot be used in arithmetic"),
    ("a = pl.array.create(n, pl.INT32)",
     "pl.array.create(): the extent must be a positive compile-time int, got 'n'"),
    ("a = pl.array.create(0, pl.INT32)",
     "pl.array.create(): the extent must be a positive compile-time int, got '0'"),
    ("a = pl.array.create(4, pl.FP32)",
     "pl.array.create(): the dtype must be an integer dtype, pl.BOOL or pl.TASK_ID, got "
     "'pl.FP32'"),
    ("v = ints[4]", "'ints[4]': index 4 is outside the array of 4 elements"),
    ("v = ints[0, 1]", "'ints[0, 1]': an array takes a single index (arrays are 1-D), as in arr[i]"),
    ("v = ints[0:2]", "'ints[0:2]': an array takes a single index (arrays are 1-D), as in arr[i]"),
    ("v = ints[1.5]", "'ints[1.5]': the array index must be an integer scalar, got '1.5'"),
    ("ints[0] = 1.5",
     "'ints[0]': the value written must be an integer scalar (ints is int32), got '1.5'"),
    ("ints[0] = tid",
     "'ints[0]': the value written must be an integer scalar (ints is int32), got 'tid'"),
    ("tids[0] = 3",
     "'tids[0]': tids is a TASK_ID array, so the value must be a task id ('with pl.at(...) as "
     "tid', pl.system.task_dummy(...)) or None, got '3'"),
    ("ints[0] = pl.cast(n, pl.INT64)",
     "'ints[0]': the value is int64 but ints is an array of int32; convert it with pl.cast first"),
    ("v = pl.array.get_element(x, 0)",
     "pl.array.get_element(): the first argument must be a pl.array, got 'x'"),
]


@pytest.mark.parametrize("body,detail", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_bad_forms_are_located_errors(tmp_path, builds, body, detail):
    src = HEAD + "    " + body + "\n"
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(n=pl.RUNTIME)
    # The statement at fault: the last line of the body that is not a `pass`.
    lines = [ln.strip() for ln in body.split("\n") if ln.strip() != "pass"]
    line = line_of(src, lines[-1], nth=lines.count(lines[-1]))
    assert first_line(info.value) == "%s:%d: %s" % (path, line, detail)


@pytest.mark.parametrize("ann,what", [("pl.Array[2, pl.INT32]", "a pl.Array"),
                                      ("pl.Scalar[pl.TASK_ID]", "a pl.Scalar[pl.TASK_ID]")])
def test_arrays_and_task_ids_are_not_kernel_parameters(tmp_path, builds, ann, what):
    src = ("import pypto.language as pl\n\n@pl.jit\ndef k(x: pl.Tensor[[4], pl.FP32], a: %s):\n"
           "    pass\n" % ann)
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(4), 1)
    assert first_line(info.value) == (
        "%s:4: parameter 'a': %s cannot be a kernel parameter: it lives in the function that "
        "creates it (arrays and task ids are passed only to @pl.jit.inline helpers)" % (path, what))


CARRY = """\
import pypto.language as pl


@pl.jit
def k(x: pl.Tensor[[64], pl.FP32], y: pl.Out[pl.Tensor[[64], pl.FP32]]):
    prev = pl.system.task_invalid()
    for phase in pl.range(2):
        for i in pl.parallel(4):
            with pl.at(level=pl.Level.CORE_GROUP, deps=[prev]) as prev:
                y[i * 16 : i * 16 + 16] = pl.add(x[i * 16 : i * 16 + 16], 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[prev]):
        y[0:16] = pl.add(y[0:16], 1.0)
    return y
"""


def test_a_task_id_rebound_in_a_parallel_loop_stays_readable(tmp_path, builds):
    # PyPTO's array carry: a later dep on it waits for every iteration's task, which the
    # simulator has finished once the loop has.
    mod, _ = load(tmp_path, CARRY)
    mod.k.compile(torch.zeros(64), torch.zeros(64))
