"""pl.dump_tag and dumps=: which task sites (`at` nodes) list which slots in `dumps`, and
the messages of their misuse (exact, with file:line)."""

import pytest
import torch

from pypto.jit import KernelCompileError
from test_frontend import first_line, line_of, load

# The helper each test's kernel calls: one InCore task.
BUMP = """\
import pypto.language as pl

T = pl.Tensor[[8], pl.FP32]


@pl.jit.incore
def bump(a: T, b: pl.Out[T]):
    b[:] = pl.add(a[:], 1.0)
    return b
"""

MARKS_SRC = BUMP + """

@pl.jit.inline
def helper(a: T, b: pl.Out[T]):
    pl.dump_tag(a)
    b = bump(a, b)
    return b


@pl.jit
def k(x: T, y: pl.Out[T], n: pl.Scalar[pl.INT64]):
    mid = pl.create_tensor([8], dtype=pl.FP32)
    pl.dump_tag(x)
    pl.dump_tag(mid)
    with pl.at(name_hint="first", dumps=[y]):
        mid[:] = pl.mul(x[:], 2.0)
    mid = bump(x, mid)
    with pl.at(name_hint="rebound"):
        y[:] = pl.add(mid[:], 1.0)
    for i in pl.range(n):
        with pl.at(name_hint="carried"):
            y[:] = pl.add(x[:], 1.0)
        x = bump(y, y)
    pl.dump_tag(y)
    for i in pl.parallel(2):
        with pl.at(name_hint="parallel"):
            y[:] = pl.add(y[:], 1.0)
    y = helper(mid, y)
    with pl.at(name_hint="after_helper"):
        y[:] = pl.add(y[:], 1.0)
    return y
"""


def task_dumps(body, slots, out=None):
    """(task name, [dumped slot names]) of every `at` node, in program order."""
    out = [] if out is None else out
    for st in body:
        if st["s"] == "at":
            out.append((st["name"], [slots[s] for s in st.get("dumps", [])]))
        for key in ("body", "then", "else"):
            task_dumps(st.get(key, []), slots, out)
    return out


def test_tags_cover_a_value_until_its_name_is_rebound(tmp_path):
    mod, _ = load(tmp_path, MARKS_SRC)
    fn = mod.k.compile(torch.zeros(8), torch.zeros(8), 4).program["functions"][0]
    assert task_dumps(fn["body"], fn["slots"]) == [
        ("first", ["y", "x", "mid"]),  # its dumps= first, then the tags in force
        ("bump", ["x", "mid"]),  # mid is passed before the assignment rebinds it
        ("rebound", ["x"]),  # mid is a new value now
        ("carried", []),  # x is rebound in the loop: inside it, a new value each iteration
        ("bump", []),
        ("parallel", ["y"]),  # y is tagged again; a parallel body carries nothing out
        ("bump", ["y", "mid"]),  # the helper's tag on its parameter (mid), for its tasks only
        ("after_helper", []),  # y rebound by the helper's result; the helper's tag ended with it
    ]


def test_an_untagged_program_lists_no_dumps(tmp_path):
    mod, _ = load(tmp_path, MARKS_SRC.replace("    pl.dump_tag(", "    pass  # ").replace(
        ', dumps=[y]', ""))
    fn = mod.k.compile(torch.zeros(8), torch.zeros(8), 4).program["functions"][0]
    assert all(not dumps for _, dumps in task_dumps(fn["body"], fn["slots"]))


def test_spmd_submit_dumps_reach_each_blocks_task(tmp_path):
    src = BUMP + """

@pl.jit
def k(x: T, y: pl.Out[T]):
    y, tid = pl.spmd_submit(self.bump, x, y, core_num=2, dumps=[x])  # noqa: F821
    return y
"""
    mod, _ = load(tmp_path, src)
    fn = mod.k.compile(torch.zeros(8), torch.zeros(8)).program["functions"][0]
    assert task_dumps(fn["body"], fn["slots"]) == [("bump", ["x"])]


KERNEL = ("import pypto.language as pl\n\n@pl.jit\n"
          "def k(x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]]):\n"
          "    BODY\n")

ERROR_CASES = [
    ("not_a_name", "pl.dump_tag(x[0:4])", "pl.dump_tag",
     "pl.dump_tag() argument must be a bare variable name, got 'x[0:4]'"),
    ("two_arguments", "pl.dump_tag(x, y)", "pl.dump_tag",
     "pl.dump_tag() takes exactly one positional argument (no keywords); use pl.dump_tag(tensor_var)"),
    ("scalar", "n = 3\n    pl.dump_tag(n)", "pl.dump_tag",
     "pl.dump_tag() argument 'n' is not a tensor (got a int64 scalar); only tensors can be dumped"),
    ("unbound", "pl.dump_tag(z)", "pl.dump_tag",
     "pl.dump_tag() argument 'z' is not defined at this point (a parameter or a name assigned earlier)"),
    ("at_not_a_list", "with pl.at(dumps=x):\n        pass", "with",
     "pl.at() dumps= must be a list literal of tensor names, got 'x'"),
    ("at_twice", "with pl.at(dumps=[x, x]):\n        pass", "with", "pl.at() dumps= lists 'x' more than once"),
    ("at_not_a_name", "with pl.at(dumps=[x[0:2]]):\n        pass", "with",
     "pl.at() dumps= entries must be bare tensor names, got 'x[0:2]'"),
    ("at_unbound", "with pl.at(dumps=[q]):\n        pass", "with",
     "pl.at() dumps= entry 'q' is not defined at this point (a parameter or a name assigned earlier)"),
]


@pytest.mark.parametrize("body,marker,detail", [case[1:] for case in ERROR_CASES],
                         ids=[case[0] for case in ERROR_CASES])
def test_misuse_is_a_compile_error(tmp_path, body, marker, detail):
    src = KERNEL.replace("BODY", body)
    assert compile_error(tmp_path, src) == (line_of(src, marker), detail)


def compile_error(tmp_path, src):
    """(line, detail) of the error compiling `src`'s kernel k on two [8] tensors."""
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(8))
    assert first_line(info.value) == "%s:%d: %s" % (path, info.value.line, info.value.detail)
    return info.value.line, info.value.detail


def test_a_tag_inside_an_incore_function_is_an_error(tmp_path):
    src = BUMP.replace("    b[:] =", "    pl.dump_tag(a)\n    b[:] =") + """

@pl.jit
def k(x: T, y: pl.Out[T]):
    y = bump(x, y)
    return y
"""
    assert compile_error(tmp_path, src) == (
        line_of(src, "pl.dump_tag"), "pl.dump_tag() is only valid inside an Orchestration or Inline function; "
        "move it to the orchestration whose tasks consume the tensor")
