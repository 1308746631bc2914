"""Frontend constructs of the DSL: loop kinds, pl.spmd, regions, init_values / pl.yield_,
compile-time folding, splicing of @pl.jit.inline / @pl.jit.incore functions and of
@pl.program methods, pl.dynamic dims, the pl.tile / pl.tensor / pl.system namespaces, and
the plane / dtype checks. Exact IR and exact messages (with file:line)."""

import enum
import json
import os

import pytest
import torch

import pypto.language as pl
from pypto.compiler import ir_text
from pypto.jit import KernelArgumentMismatchError, KernelCompileError, Program
from pypto.language import constructs, op_table
from pypto.runtime import RunConfig
from test_frontend import add, c, first_line, line_of, load, var

NONE = c("none", None)


def binop(op, lhs, rhs):
    return {"e": "binop", "op": op, "lhs": lhs, "rhs": rhs}


def call(op, *args, **kwargs):
    return {"e": "call", "op": op, "args": list(args), "kwargs": kwargs}


def sl(lo, hi):
    return {"k": "slice", "lo": lo, "hi": hi}


def sub(base, index, text):
    return {"e": "subscript", "base": base, "index": index, "text": text}


def dump(prog):
    """The passes_dump listing without its header line (which names the temp file)."""
    return ir_text.program_text(prog.program).split("\n", 1)[1]


@pytest.fixture
def matmul_rows(monkeypatch):
    """matmul / matmul_acc rows for the dtype checks, whether or not the op table has them
    yet (the frontend only needs their arity)."""
    S = op_table.OpSpec
    if "matmul" not in op_table.OPS:
        monkeypatch.setitem(op_table.OPS, "matmul", S(("lhs", "rhs"), 2, ("out_dtype",)))
    if "matmul_acc" not in op_table.OPS:
        monkeypatch.setitem(op_table.OPS, "matmul_acc", S(("acc", "lhs", "rhs"), 3, ()))


# ---------------------------------------------------------------- loops and regions

LOOPS_SRC = """\
import pypto.language as pl

N = 64


@pl.jit
def k(x: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INT64], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
    for i in pl.unroll(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="u", deps=[], optimizations=[]) as tid:
            y[i * 16 : i * 16 + 16] = pl.add(x[i * 16 : i * 16 + 16], 1.0)
    for j in pl.pipeline(0, n, 2, stage=2):
        pl.system.fence()
    for b in pl.spmd(4, name_hint="blocks"):
        with pl.at():
            y[b * 16 : b * 16 + 16] = pl.add(x[b * 16 : b * 16 + 16], pl.get_block_num())
    with pl.spmd(n) as t2:
        blk = pl.get_block_idx()
        cnt = pl.tile.get_block_num()
    with pl.scope():
        with pl.manual_scope():
            z = pl.no_dep(x)
    return y
"""


def test_loop_kinds_spmd_and_regions(tmp_path, builds):
    mod, _ = load(tmp_path, LOOPS_SRC)
    fn = mod.k.compile(n=pl.RUNTIME).program["functions"][0]
    L = lambda text: line_of(LOOPS_SRC, text)  # noqa: E731
    assert fn["slots"] == ["x", "n", "y", "i", "tid", "j", "b", "t2", "block_num",
                           "block_idx", "blk", "cnt", "z"]

    def window(v):
        lo = binop("mul", var(v), c("int64", 16))
        return [sl(lo, add(lo, c("int64", 16)))]

    assert fn["body"] == [
        {"s": "for", "line": L("pl.unroll"), "kind": "unroll", "var": 3, "start": c("int64", 0),
         "stop": c("int64", 4), "step": c("int64", 1), "body": [
             {"s": "assign", "line": L("with pl.at(level"), "slot": 4,
              "value": c("task_id", 1)},
             {"s": "at", "line": L("with pl.at(level"), "name": "u", "tid": 4, "body": [
                 {"s": "write", "line": L("y[i"), "target": 2, "index": window(3),
                  "text": "y[i * 16 : i * 16 + 16]",
                  "value": call("add", sub(var(0), window(3), "x[i * 16 : i * 16 + 16]"),
                                c("fp32", 1.0))}]}]},
        {"s": "for", "line": L("pl.pipeline"), "kind": "pipeline", "var": 5,
         "start": c("int64", 0), "stop": var(1), "step": c("int64", 2), "body": []},
        {"s": "for", "line": L("pl.spmd(4"), "kind": "spmd", "var": 6, "start": c("int64", 0),
         "stop": c("int64", 4), "step": c("int64", 1), "body": [
             {"s": "at", "line": L("with pl.at()"), "name": None, "body": [
                 {"s": "write", "line": L("y[b"), "target": 2, "index": window(6),
                  "text": "y[b * 16 : b * 16 + 16]",
                  "value": call("add", sub(var(0), window(6), "x[b * 16 : b * 16 + 16]"),
                                c("int64", 4))}]}]},
        {"s": "assign", "line": L("pl.spmd(n)"), "slot": 7, "value": c("task_id", 2)},
        {"s": "assign", "line": L("pl.spmd(n)"), "slot": 8, "value": var(1)},
        {"s": "for", "line": L("pl.spmd(n)"), "kind": "spmd", "var": 9, "start": c("int64", 0),
         "stop": var(8), "step": c("int64", 1), "tid": 7, "body": [
             # the task each block runs (a body with a region in it is left as it is)
             {"s": "at", "line": L("pl.spmd(n)"), "name": None, "body": [
                 {"s": "assign", "line": L("blk ="), "slot": 10, "value": var(9)},
                 {"s": "assign", "line": L("cnt ="), "slot": 11, "value": var(8)}]}]},
        {"s": "assign", "line": L("z ="), "slot": 12, "value": var(0)},
        {"s": "return", "line": L("return"), "values": [var(2)]},
    ]


def test_block_index_outside_spmd_is_block_zero_of_one(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor[[4], pl.FP32]):
            i = pl.get_block_idx()
            n = pl.get_block_num()
            s = pl.get_subblock_idx()
        """
    mod, _ = load(tmp_path, src)
    body = mod.k.compile(torch.zeros(4)).program["functions"][0]["body"]
    assert [s["value"] for s in body] == [c("int64", 0), c("int64", 1), c("int64", 0)]


# ---------------------------------------------------------------- loop-carried values

CARRY_SRC = """\
import pypto.language as pl

MODE = 2


@pl.jit
def k(x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INT64], y: pl.Out[pl.Tensor[[8], pl.FP32]]):
    for i, (s, t) in pl.range(n, init_values=(0, x)):
        s2 = s + i
        with pl.at():
            t2 = pl.add(t, 1.0)
        s_out, t_out = pl.yield_(s2, t2)
    if n > 3:
        u = pl.yield_(s_out)
    else:
        u = pl.yield_(0)
    if MODE == 1:
        w = 1
    elif MODE == 2:
        w = 2
    else:
        w = 3
    y[0:8] = t_out
    return y
"""


def test_init_values_yield_and_compile_time_if(tmp_path, builds):
    mod, _ = load(tmp_path, CARRY_SRC)
    fn = mod.k.compile(n=pl.RUNTIME).program["functions"][0]
    L = lambda text: line_of(CARRY_SRC, text)  # noqa: E731
    assert fn["slots"] == ["x", "n", "y", "s", "t", "i", "s2", "t2", "s_out", "t_out", "u", "w"]
    loop = L("for i, (s, t)")
    yld = L("s_out, t_out =")
    assert fn["body"] == [
        # carried slots start from the initial values ...
        {"s": "unpack", "line": loop, "slots": [3, 4],
         "value": {"e": "tuple", "items": [c("int64", 0), var(0)]}},
        {"s": "for", "line": loop, "kind": "range", "var": 5, "start": c("int64", 0),
         "stop": var(1), "step": c("int64", 1), "body": [
             {"s": "assign", "line": L("s2 ="), "slot": 6, "value": add(var(3), var(5))},
             {"s": "at", "line": L("with pl.at"), "name": None, "body": [
                 {"s": "assign", "line": L("t2 ="), "slot": 7,
                  "value": call("add", var(4), c("fp32", 1.0))}]},
             # ... are replaced at the yield ...
             {"s": "unpack", "line": yld, "slots": [3, 4],
              "value": {"e": "tuple", "items": [var(6), var(7)]}},
             {"s": "unpack", "line": yld, "slots": [8, 9],
              "value": {"e": "tuple", "items": [var(3), var(4)]}}]},
        # ... and bind the loop's results after it, so a zero-trip loop gives the init values.
        {"s": "unpack", "line": loop, "slots": [8, 9],
         "value": {"e": "tuple", "items": [var(3), var(4)]}},
        {"s": "if", "line": L("if n > 3"), "cond": binop("gt", var(1), c("int64", 3)),
         "then": [{"s": "assign", "line": L("u = pl.yield_(s_out)"), "slot": 10, "value": var(8)}],
         "else": [{"s": "assign", "line": L("u = pl.yield_(0)"), "slot": 10,
                   "value": c("int64", 0)}]},
        # MODE == 2 is known at compile time: only that branch is translated.
        {"s": "assign", "line": L("w = 2"), "slot": 11, "value": c("int64", 2)},
        {"s": "write", "line": L("y[0:8]"), "target": 2,
         "index": [sl(c("int64", 0), c("int64", 8))], "text": "y[0:8]", "value": var(9)},
        {"s": "return", "line": L("return"), "values": [var(2)]},
    ]


def test_names_rebound_in_loops_are_not_folded(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INT64]):
            acc = 1
            lim = 4
            for i in pl.range(n):
                b = acc * 2
                acc = acc + lim
            d = acc
            e = lim + 1
            for j in pl.parallel(n):
                lim = 7
            f = 0
        """
    mod, _ = load(tmp_path, src)
    fn = mod.k.compile(n=pl.RUNTIME).program["functions"][0]
    assert fn["slots"] == ["x", "n", "acc", "lim", "i", "b", "d", "e", "j", "f"]
    body = fn["body"]
    # acc is carried by the loop: read from its slot inside and after it; lim is not: folded.
    assert body[2]["body"] == [
        {"s": "assign", "line": 8, "slot": 5, "value": binop("mul", var(2), c("int64", 2))},
        {"s": "assign", "line": 9, "slot": 2, "value": add(var(2), c("int64", 4))}]
    assert body[3]["value"] == var(2)
    assert body[4]["value"] == c("int64", 5)
    # A parallel loop's iterations run on copies: reading lim after it is a compile error
    # (test_frontend.py), so nothing after the loop may fold it.
    assert body[6] == {"s": "assign", "line": 14, "slot": 9, "value": c("int64", 0)}


# ---------------------------------------------------------------- splicing

HELPER_SRC = """\
import pypto.language as pl


@pl.jit.inline
def bump(t, amount=1.0):
    with pl.at(name_hint="bump"):
        t[:] = pl.add(t, amount)
"""

INLINE_SRC = """\
import pypto.language as pl
from helpers_other import bump

ROWS = 16


@pl.jit.inline
def scaled(src, dst, scale, rows=ROWS):
    half = rows // 2
    with pl.at(name_hint="scaled"):
        dst[0:half] = pl.add(src[0:half], scale)
        dst[half:rows] = pl.add(src[half:rows], scale)
    return dst


@pl.jit.inline
def pick(a, b, first):
    if first:
        return a
    else:
        return b


@pl.jit.inline
def swap(a, b):
    return b, a


@pl.jit.incore
def tile_add(src, dst, step):
    i = pl.get_block_idx()
    dst[i * step : i * step + step] = pl.add(src[i * step : i * step + step], 2.0)
    return dst


@pl.jit
def k(x: pl.Tensor[[ROWS], pl.FP32], a: pl.Scalar[pl.FP32],
      y: pl.Out[pl.Tensor[[ROWS], pl.FP32]], z: pl.Out[pl.Tensor[[ROWS], pl.FP32]]):
    y = scaled(x, y, a)
    scaled(src=x, dst=z, scale=2.0, rows=8)
    w = pick(y, z, a > 0.0)
    p, q = swap(y, z)
    r = pick(y, z, True)
    for b in pl.spmd(4):
        tile_add(x, z, 4)
    bump(z)
    return y, z
"""


def test_inline_and_incore_functions_are_spliced(tmp_path, builds, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "helpers_other.py").write_text(HELPER_SRC)
    mod, path = load(tmp_path, INLINE_SRC)
    prog = mod.k.compile(a=pl.RUNTIME)
    fn = prog.program["functions"][0]
    L = lambda text, nth=1: line_of(INLINE_SRC, text, nth)  # noqa: E731
    assert fn["slots"] == ["x", "a", "y", "z", "scaled.half", "scaled_2.half", "w",
                           "pick.first", "p", "q", "r", "b", "tile_add.i"]

    def halves(lo, mid, hi):
        return [sl(c("int64", lo), c("int64", mid))], [sl(c("int64", mid), c("int64", hi))]

    y_lo, y_hi = halves(0, 8, 16)
    z_lo, z_hi = halves(0, 4, 8)
    win = lambda v: [sl(binop("mul", var(v), c("int64", 4)),  # noqa: E731
                        add(binop("mul", var(v), c("int64", 4)), c("int64", 4)))]
    assert fn["body"] == [
        # y = scaled(x, y, a): params alias the caller's slots, `return dst` is y itself.
        {"s": "assign", "line": L("half ="), "slot": 4, "value": c("int64", 8)},
        {"s": "at", "line": L("with pl.at(name_hint=\"scaled\")"), "name": "scaled", "body": [
            {"s": "write", "line": L("dst[0:half]"), "target": 2, "index": y_lo,
             "text": "dst[0:half]", "value": call("add", sub(var(0), y_lo, "src[0:half]"), var(1))},
            {"s": "write", "line": L("dst[half:rows]"), "target": 2, "index": y_hi,
             "text": "dst[half:rows]",
             "value": call("add", sub(var(0), y_hi, "src[half:rows]"), var(1))}]},
        # keywords, a compile-time argument (folded) and a default overridden
        {"s": "assign", "line": L("half ="), "slot": 5, "value": c("int64", 4)},
        {"s": "at", "line": L("with pl.at(name_hint=\"scaled\")"), "name": "scaled", "body": [
            {"s": "write", "line": L("dst[0:half]"), "target": 3, "index": z_lo,
             "text": "dst[0:half]",
             "value": call("add", sub(var(0), z_lo, "src[0:half]"), c("fp32", 2.0))},
            {"s": "write", "line": L("dst[half:rows]"), "target": 3, "index": z_hi,
             "text": "dst[half:rows]",
             "value": call("add", sub(var(0), z_hi, "src[half:rows]"), c("fp32", 2.0))}]},
        # a runtime argument gets a slot; returns in both branches assign the target
        {"s": "assign", "line": L("w = pick"), "slot": 7, "value": binop("gt", var(1),
                                                                         c("fp32", 0.0))},
        {"s": "if", "line": L("if first"), "cond": var(7),
         "then": [{"s": "assign", "line": L("return a"), "slot": 6, "value": var(2)}],
         "else": [{"s": "assign", "line": L("return b"), "slot": 6, "value": var(3)}]},
        # a tuple return into a tuple target
        {"s": "unpack", "line": L("return b, a"), "slots": [8, 9],
         "value": {"e": "tuple", "items": [var(3), var(2)]}},
        # a compile-time condition folds inside the callee too
        {"s": "assign", "line": L("return a"), "slot": 10, "value": var(2)},
        # @pl.jit.incore: one InCore task per call; pl.get_block_idx() is the spmd index
        {"s": "for", "line": L("pl.spmd(4)"), "kind": "spmd", "var": 11, "start": c("int64", 0),
         "stop": c("int64", 4), "step": c("int64", 1), "body": [
             {"s": "at", "line": L("tile_add(x, z, 4)"), "name": "tile_add", "body": [
                 {"s": "assign", "line": L("i = pl.get_block_idx()"), "slot": 12,
                  "value": var(11)},
                 {"s": "write", "line": L("dst[i * step"), "target": 3, "index": win(12),
                  "text": "dst[i * step : i * step + step]",
                  "value": call("add", sub(var(0), win(12), "src[i * step : i * step + step]"),
                                c("fp32", 2.0))}]}]},
        # a helper from another file: its statements carry the call site's line
        {"s": "at", "line": L("bump(z)"), "name": "bump", "body": [
            {"s": "write", "line": L("bump(z)"), "target": 3, "index": [sl(None, None)],
             "text": "t[:]", "value": call("add", var(3), c("fp32", 1.0))}]},
        {"s": "return", "line": L("return y, z"), "values": [var(2), var(3)]},
    ]
    # The helpers' sources are part of the cache key.
    assert mod.k.compile(a=pl.RUNTIME) is prog


def test_spliced_call_inside_an_expression_and_rebound_params(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit.inline
        def twice(v, n):
            n = n * 2
            v = v + n
            return v

        @pl.jit
        def k(x: pl.Tensor[[4], pl.FP32], s: pl.Scalar[pl.INT64]):
            t = twice(s, 3) + twice(s, s)
            return t
        """
    mod, _ = load(tmp_path, src)
    fn = mod.k.compile(s=pl.RUNTIME).program["functions"][0]
    assert fn["slots"] == ["x", "s", "twice.ret", "twice.v", "twice.n", "twice_2.ret",
                           "twice_2.v", "twice_2.n", "t"]
    call_line = line_of(src, "t = twice")
    assert fn["body"] == [
        # rebound parameters are copies (the caller's `s` is never written)
        {"s": "assign", "line": call_line, "slot": 3, "value": var(1)},
        {"s": "assign", "line": call_line, "slot": 4, "value": c("int64", 3)},
        {"s": "assign", "line": 5, "slot": 4, "value": c("int64", 6)},
        {"s": "assign", "line": 6, "slot": 3, "value": add(var(3), c("int64", 6))},
        {"s": "assign", "line": 7, "slot": 2, "value": var(3)},
        {"s": "assign", "line": call_line, "slot": 6, "value": var(1)},
        {"s": "assign", "line": call_line, "slot": 7, "value": var(1)},
        {"s": "assign", "line": 5, "slot": 7, "value": binop("mul", var(7), c("int64", 2))},
        {"s": "assign", "line": 6, "slot": 6, "value": add(var(6), var(7))},
        {"s": "assign", "line": 7, "slot": 5, "value": var(6)},
        {"s": "assign", "line": call_line, "slot": 8, "value": add(var(2), var(5))},
        {"s": "return", "line": line_of(src, "return t"), "values": [var(8)]},
    ]


SPLICE_ERRORS = [
    ("arity", "@pl.jit.inline\ndef h(a, b):\n    return a\n", "t = h(x)",
     "h() missing 1 required argument: 'b'"),
    ("too_many", "@pl.jit.inline\ndef h(a):\n    return a\n", "t = h(x, x)",
     "h() takes 1 argument (a) but 2 were given"),
    ("keyword", "@pl.jit.inline\ndef h(a):\n    return a\n", "t = h(x, b=x)",
     "h() got an unexpected keyword argument 'b'"),
    ("no_value", "@pl.jit.inline\ndef h(a):\n    pass\n", "t = h(x)",
     "'h' returns no value, but its result is assigned"),
    ("no_value_used", "@pl.jit.inline\ndef h(a):\n    pass\n", "t = [h(x)]",
     "'h' returns no value, but its result is used"),
    ("unpack", "@pl.jit.inline\ndef h(a):\n    return a, a\n", "t, u, v = h(x)",
     "'h' returns 2 values but 3 names are assigned"),
    ("entry", "@pl.jit\ndef h(a):\n    return a\n", "t = h(x)",
     "'h' is a @pl.jit entry kernel and cannot be called from a kernel; decorate it with "
     "@pl.jit.inline or @pl.jit.incore"),
    ("recursion", "@pl.jit.inline\ndef h(a):\n    return h(a)\n", "t = h(x)",
     "'h' calls itself (directly or through other functions); recursion cannot be spliced"),
]


@pytest.mark.parametrize("helper,body,detail", [c_[1:] for c_ in SPLICE_ERRORS],
                         ids=[c_[0] for c_ in SPLICE_ERRORS])
def test_splice_errors(tmp_path, builds, helper, body, detail):
    src = ("import pypto.language as pl\n\n" + helper + "\n@pl.jit\n"
           "def k(x: pl.Tensor[[8], pl.FP32]):\n    " + body + "\n")
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8))
    line = line_of(src, "return h(a)") if "recursion" in detail else line_of(src, body)
    assert first_line(info.value) == "%s:%d: %s" % (path, line, detail)


def test_spliced_return_must_be_last(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit.inline
        def h(a, b):
            if b:
                return a
            t = a
            return t

        @pl.jit.inline
        def g(a, b):
            if b:
                return a

        @pl.jit
        def k(x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INT64]):
            t = h(x, n)
            u = g(x, n)
        """
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(n=pl.RUNTIME)
    assert first_line(info.value) == (
        "%s:6: 'h' is spliced into its caller, so a return must be its last statement (or end "
        "both branches of a final if/else)" % path)
    src2 = src.replace("t = h(x, n)", "pass")
    mod, path = load(tmp_path, src2)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(n=pl.RUNTIME)
    assert first_line(info.value) == ("%s:11: 'g' returns a value on some paths only; every path must "
                               "end in a return" % path)


# ---------------------------------------------------------------- @pl.program

PROGRAM_SRC = """\
import pypto.language as pl

M = pl.dynamic("M")
COLS = 32


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def body(self, x, out, r):
        out[r : r + 8, :] = pl.add(x[r : r + 8, :], 1.0)
        return out

    @pl.function(type=pl.FunctionType.Inline)
    def rows(self, t):
        return pl.tensor.dim(t, 0)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, COLS], pl.FP32], s: pl.Scalar[pl.INT64],
             y: pl.Out[pl.Tensor[[M, COLS], pl.FP32]]):
        n = self.rows(x)
        for r in pl.parallel(0, n, 8):
            y = self.body(x, y, r)
        c = x.shape[1] + s
        return y
"""


def test_program_kernel(tmp_path, builds):
    mod, path = load(tmp_path, PROGRAM_SRC)
    P = mod.Prog
    assert isinstance(P, Program)
    assert (P.__name__, P.param_names, repr(P)) == ("Prog", ["x", "s", "y"],
                                                    "Program('Prog', entry='main')")
    prog = P.compile(torch.zeros(24, 32), 3, torch.zeros(24, 32))
    L = lambda text: line_of(PROGRAM_SRC, text)  # noqa: E731
    fn = prog.program["functions"][0]
    assert (prog.program["entry"], fn["name"], fn["line"]) == ("main", "main", L("def main"))
    # Shapes come from the annotations (the pl.dynamic dim stays a runtime extent) and the
    # scalar stays a runtime parameter: a program is not specialised.
    assert fn["params"] == [
        {"name": "x", "kind": "tensor", "direction": "In", "shape": [-1, 32], "dtype": "fp32"},
        {"name": "s", "kind": "scalar", "direction": "In", "dtype": "int64", "runtime": True},
        {"name": "y", "kind": "tensor", "direction": "Out", "shape": [-1, 32], "dtype": "fp32"}]
    rows = [sl(var(4), add(var(4), c("int64", 8))), sl(None, None)]
    assert fn["body"] == [
        {"s": "assign", "line": L("return pl.tensor.dim"), "slot": 3,
         "value": call("dim", var(0), c("int64", 0))},
        {"s": "for", "line": L("for r"), "kind": "parallel", "var": 4, "start": c("int64", 0),
         "stop": var(3), "step": c("int64", 8), "body": [
             {"s": "at", "line": L("y = self.body"), "name": "body", "body": [
                 {"s": "write", "line": L("out[r"), "target": 2, "index": rows,
                  "text": "out[r : r + 8, :]",
                  "value": call("add", sub(var(0), rows, "x[r : r + 8, :]"),
                                c("fp32", 1.0))}]}]},
        {"s": "assign", "line": L("c = x.shape"), "slot": 5, "value": add(c("int64", 32), var(1))},
        {"s": "return", "line": L("return y"), "values": [var(2)]},
    ]
    meta = json.loads((prog.output_dir / "compiled_meta.json").read_text())
    assert [p["shape"] for p in meta["params"]] == [[-1, 32], None, [-1, 32]]
    assert prog.output_dir.name.startswith("Prog_")
    # One artifact for every extent of M and every scalar value, and for signature mode.
    assert P.compile(torch.zeros(48, 32), 5, torch.zeros(48, 32)) is prog
    assert P.compile() is prog and P.compile(s=pl.RUNTIME) is prog
    with pytest.raises(KernelArgumentMismatchError) as info:
        P.compile(torch.zeros(24, 16), 3, torch.zeros(24, 32))
    assert str(info.value) == ("%s:%d: parameter 'x': annotated shape [M, 32] but the tensor "
                               "passed has shape [24, 16]" % (path, L("def main")))


def test_program_errors(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.program
        class Two:
            @pl.function(type=pl.FunctionType.Orchestration)
            def a(self, x: pl.Tensor[[4], pl.FP32]):
                pass

            @pl.function
            def b(self, x: pl.Tensor[[4], pl.FP32]):
                pass
        """
    with pytest.raises(KernelCompileError) as info:
        load(tmp_path, src)
    assert info.value.detail == ("@pl.program 'Two' has 2 Orchestration/Opaque functions (a, b); "
                                 "exactly one is the entry")
    assert info.value.line == 3
    src = """\
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[4], pl.FP32]):
                self.nope(x)
        """
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.P.compile()
    assert first_line(info.value) == "%s:7: 'self.nope' is not a @pl.function of this @pl.program" % path
    with pytest.raises(TypeError, match=r"pl.function\(\) got an unexpected keyword argument "
                                        r"'kind'"):
        pl.function(kind=1)


# ---------------------------------------------------------------- dynamic dims, shapes, dims

def test_dynamic_dims_shape_and_dim(tmp_path, builds):
    src = """\
        import pypto.language as pl

        M = pl.dynamic("M")

        @pl.jit
        def k(x: pl.Tensor[[M, 16], pl.FP16], y: pl.Out[pl.Tensor[[M, 16], pl.FP16]]):
            rows, cols = x.shape
            a = pl.tensor.dim(x, 0)
            b = pl.tensor.dim(y, -1)
            d = x.dtype
            return y
        """
    mod, path = load(tmp_path, src)
    prog = mod.k.compile(torch.zeros(8, 16, dtype=torch.float16),
                         torch.zeros(8, 16, dtype=torch.float16))
    fn = prog.program["functions"][0]
    assert [p["shape"] for p in fn["params"]] == [[-1, 16], [-1, 16]]
    assert fn["body"][:4] == [
        {"s": "unpack", "line": 7, "slots": [2, 3],
         "value": {"e": "list", "items": [call("dim", var(0), c("int64", 0)), c("int64", 16)]}},
        {"s": "assign", "line": 8, "slot": 4, "value": call("dim", var(0), c("int64", 0))},
        {"s": "assign", "line": 9, "slot": 5, "value": c("int64", 16)},
        {"s": "assign", "line": 10, "slot": 6, "value": c("dtype", "fp16")},
    ]
    # pl.dynamic dims are not part of the cache key; signature mode works with them.
    assert mod.k.compile(torch.zeros(32, 16, dtype=torch.float16),
                         torch.zeros(32, 16, dtype=torch.float16)) is prog
    assert mod.k.compile().program == prog.program
    with pytest.raises(KernelArgumentMismatchError) as info:
        mod.k.compile(torch.zeros(8, 16, dtype=torch.float16),
                      torch.zeros(4, 16, dtype=torch.float16))
    assert str(info.value) == ("%s:6: parameter 'y': dim 0 is pl.dynamic('M') = 4 here but 8 in "
                               "parameter 'x'" % path)


def test_shape_known_through_views_and_aliases(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit.inline
        def info(t):
            r, cc = t.shape
            return r * cc

        @pl.jit
        def k(x: pl.Tensor[[64, 32], pl.FP32]):
            v = x[8:24, :]
            e = x[3]
            n = info(v)
            m = info(x[0:4, 0:2])
            s = e.shape[0]
        """
    mod, _ = load(tmp_path, src)
    assert dump(mod.k.compile(torch.zeros(64, 32))) == (
        "    9 | def k:\n"
        "      |   # param 0 x: tensor In [64, 32] fp32\n"
        "   10 |   v = x[8:24, :]\n"
        "   11 |   e = x[3]\n"
        "    5 |   info.r, info.cc = [16, 32]\n"
        "    6 |   n = 512\n"
        "   13 |   info_2.t = x[0:4, 0:2]\n"
        "    5 |   info_2.r, info_2.cc = [4, 2]\n"
        "    6 |   m = 8\n"
        "   14 |   s = 32\n")


# ---------------------------------------------------------------- namespaces and enums

class Mode(enum.Enum):
    FAST = 1


def test_namespaces_resolve_to_the_op_table():
    assert pl.tile.add is pl.add and pl.tensor.add is pl.add
    assert pl.tensor.dim._pypto_op == "dim" and pl.dim is pl.tensor.dim
    assert pl.tile.get_block_idx is pl.get_block_idx
    assert pl.system.task_dummy._pypto_task == "task_dummy"
    assert pl.system.fence._pypto_system == "fence"
    assert pl.array.create is pl.array_create and pl.array.get_element is pl.array_get_element
    for op in op_table.OPS:  # every row, under every spelling (but the tile forms of their own)
        assert getattr(pl, op) is getattr(pl.tensor, op)
        assert getattr(pl.tile, op) is getattr(pl, op) or op in constructs.TILE_FORMS
    assert pl.tile.matmul is not pl.matmul and pl.tile.matmul._pypto_op == "tile_matmul"
    assert not hasattr(pl, "tile_matmul")
    with pytest.raises(AttributeError, match=r"pl.tile has no attribute 'frobnicate'"):
        pl.tile.frobnicate
    with pytest.raises(AttributeError):
        pl.system.add
    with pytest.raises(RuntimeError, match=r"only meaningful inside a @pl.jit kernel"):
        pl.system.fence()


def test_enums_dtypes_and_lists_as_op_arguments(tmp_path, builds, monkeypatch):
    monkeypatch.setitem(op_table.OPS, "probe", op_table.OpSpec(("x", "shape", "dtype"), 2,
                                                               ("mode",)))
    src = """\
        import pypto.language as pl
        from test_frontend_constructs import Mode

        SHAPE = (4, 8)

        @pl.jit
        def k(x: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INT64]):
            with pl.at():
                t = pl.tile.probe(x, (n, 8), pl.BF16, mode=Mode.FAST)
                u = pl.tensor.probe(x, SHAPE, x.dtype, mode=pl.Level.CORE_GROUP)
            pl.system.syncall()
            tid = pl.system.task_dummy(deps=[])
            x.bind_dynamic(0, n)
        """
    mod, _ = load(tmp_path, src)
    body = mod.k.compile(n=pl.RUNTIME).program["functions"][0]["body"]
    assert body[0]["body"] == [
        {"s": "assign", "line": 9, "slot": 2,
         "value": call("probe", var(0), {"e": "list", "items": [var(1), c("int64", 8)]},
                       c("dtype", "bfloat16"), mode=c("str", "Mode.FAST"))},
        {"s": "assign", "line": 10, "slot": 3,
         "value": call("probe", var(0), {"e": "list", "items": [c("int64", 4), c("int64", 8)]},
                       c("dtype", "fp32"), mode=c("str", "Level.CORE_GROUP"))},
    ]
    # pl.system.syncall is a barrier (it waits for nothing outside a parallel loop), the other
    # pl.system.* and bind_dynamic are no-ops; a barrier task is a call with its site's id.
    assert body[1:] == [{"s": "barrier", "line": 11},
                        {"s": "assign", "line": 12, "slot": 4,
                         "value": call("task_dummy", c("task_id", 1), {"e": "list", "items": []},
                                       c("int64", 12), c("bool", False))}]


# ---------------------------------------------------------------- dtype checks

def test_dtype_checks(tmp_path, builds, matmul_rows):
    head = ("import pypto.language as pl\n\n@pl.jit\n"
            "def k(x: pl.Tensor[[8, 8], pl.FP32], h: pl.Tensor[[8, 8], pl.FP16],\n"
            "      b: pl.Tensor[[8, 8], pl.BF16], i: pl.Tensor[[8, 8], pl.INT8],\n"
            "      y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):\n"
            "    with pl.at():\n")
    cases = [
        ("t = pl.add(x, h)", "pl.add(): the operands have different dtypes (fp32 and fp16); the "
         "hardware does not convert implicitly, pl.cast one of them first"),
        ("t = pl.tile.add(h[0:4, :], x[0:4, :])", "pl.tile.add(): the operands have different "
         "dtypes (fp16 and fp32); the hardware does not convert implicitly, pl.cast one of them "
         "first"),
        ("t = x + h", "'x + h': the operands have different dtypes (fp32 and fp16); the hardware "
         "does not convert implicitly, pl.cast one of them first"),
        ("y[:, :] = h", "'y[:, :]': the value written is fp16 but 'y' is fp32; convert it with "
         "pl.cast first"),
        ("t = pl.matmul(h, b)", "pl.matmul(): lhs and rhs must have the same dtype, got fp16 "
         "and bfloat16"),
        ("t = pl.matmul_acc(b, b, b)", "pl.matmul_acc(): the accumulator is bfloat16 but "
         "bfloat16 inputs accumulate in FP32; create it as pl.FP32 (or start it with "
         "pl.matmul(..., out_dtype=pl.FP32))"),
        ("acc = pl.matmul(b, b)\n        acc = pl.matmul_acc(acc, b, b)", "pl.matmul_acc(): the "
         "accumulator is bfloat16 but bfloat16 inputs accumulate in FP32; create it as pl.FP32 "
         "(or start it with pl.matmul(..., out_dtype=pl.FP32))"),
        ("t = pl.matmul_acc(x, i, i)", "pl.matmul_acc(): the accumulator is fp32 but int8 inputs "
         "accumulate in INT32; create it as pl.INT32 (or start it with pl.matmul(..., "
         "out_dtype=pl.INT32))"),
        ("t = pl.tile.matmul(h, b)", "pl.tile.matmul(): lhs and rhs must have the same dtype, got "
         "fp16 and bfloat16"),
        ("t = pl.tile.matmul(b, b, out_dtype=pl.BF16)", "pl.tile.matmul() got an unexpected "
         "keyword argument 'out_dtype'"),
        ("acc = pl.tile.matmul(i, i)\n        acc = pl.matmul_acc(acc, b, b)", "pl.matmul_acc(): "
         "the accumulator is int32 but bfloat16 inputs accumulate in FP32; create it as pl.FP32 "
         "(or start it with pl.matmul(..., out_dtype=pl.FP32))"),
    ]
    for body, detail in cases:
        src = head + "        " + body + "\n"
        mod, path = load(tmp_path, src)
        with pytest.raises(KernelCompileError) as info:
            mod.k.compile()
        line = len(src.splitlines())
        assert first_line(info.value) == "%s:%d: %s" % (path, line, detail)
    # What the hardware accepts compiles: an FP32 accumulator started by matmul(out_dtype=).
    ok = head + ("        for kb in pl.range(4):\n"
                 "            if kb == 0:\n"
                 "                acc = pl.matmul(b, b, out_dtype=pl.FP32)\n"
                 "            else:\n"
                 "                acc = pl.matmul_acc(acc, b, b)\n"
                 "        acc2 = pl.matmul_acc(pl.matmul(b, b, out_dtype=pl.FP32), b, b)\n"
                 "        y[:, :] = acc2\n")
    mod, _ = load(tmp_path, ok)
    mod.k.compile()
    # pl.tile.matmul is PyPTO's tile.matmul: its result is the Cube accumulator's dtype (where
    # pl.matmul without out_dtype keeps the operands'), so it starts a matmul_acc chain.
    tile = head + ("        acc = pl.tile.matmul(b, b)\n"
                   "        acc = pl.tile.matmul_acc(acc, b, b)\n"
                   "        y[:, :] = acc\n"
                   "        n = pl.tile.matmul(i, i)\n")
    mod, _ = load(tmp_path, tile)
    body = mod.k.compile().program["functions"][0]["body"][0]["body"]
    assert [s["value"] for s in body if s["s"] == "assign"][0::2] == [
        call("matmul", var(2), var(2), out_dtype=c("dtype", "fp32")),
        call("matmul", var(3), var(3), out_dtype=c("dtype", "int32"))]


# ---------------------------------------------------------------- dump, IR size

def test_passes_dump_of_a_spliced_kernel(tmp_path, builds, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "helpers_other.py").write_text(HELPER_SRC)
    mod, path = load(tmp_path, INLINE_SRC)
    prog = mod.k.compile(a=pl.RUNTIME, config=RunConfig(dump_passes=True))
    text = (prog.output_dir / "passes_dump" / "sim_program.txt").read_text()
    assert text.splitlines()[0] == "# k (%s), sim_program version 1" % path
    assert text.split("\n", 1)[1] == (
        "   37 | def k:\n"
        "      |   # param 0 x: tensor In [16] fp32\n"
        "      |   # param 1 a: scalar fp32 (runtime)\n"
        "      |   # param 2 y: tensor Out [16] fp32\n"
        "      |   # param 3 z: tensor Out [16] fp32\n"
        "    9 |   scaled.half = 8\n"
        "   10 |   at 'scaled':\n"
        "   11 |     y[0:8] = add(x[0:8], a)\n"
        "   12 |     y[8:16] = add(x[8:16], a)\n"
        "    9 |   scaled_2.half = 4\n"
        "   10 |   at 'scaled':\n"
        "   11 |     z[0:4] = add(x[0:4], 2.0)\n"
        "   12 |     z[4:8] = add(x[4:8], 2.0)\n"
        "   41 |   pick.first = a > 0.0\n"
        "   18 |   if pick.first:\n"
        "   19 |     w = y\n"
        "   18 |   else:\n"
        "   21 |     w = z\n"
        "   26 |   p, q = (z, y)\n"
        "   19 |   r = y\n"
        "   44 |   for b in spmd(0, 4, 1):\n"
        "   45 |     at 'tile_add':\n"
        "   31 |       tile_add.i = b\n"
        "   32 |       z[tile_add.i * 4:(tile_add.i * 4) + 4] = "
        "add(x[tile_add.i * 4:(tile_add.i * 4) + 4], 2.0)\n"
        "   46 |   at 'bump':\n"
        "   46 |     z[:] = add(z, 1.0)\n"
        "   47 |   return y, z\n")


TRIPS_SRC = """\
import pypto.language as pl

TRIPS = {trips}


@pl.jit
def k(x: pl.Tensor[[16], pl.FP32], y: pl.Out[pl.Tensor[[16], pl.FP32]]):
    for i, (acc,) in pl.range(TRIPS, init_values=(0,)):
        for j in pl.unroll(4):
            with pl.at():
                y[j * 4 : j * 4 + 4] = pl.add(x[j * 4 : j * 4 + 4], 1.0)
        acc_out = pl.yield_(acc + i)
    return y
"""


def ir_nodes(obj):
    """Number of IR nodes (statements, expressions, index items): the size that matters."""
    if isinstance(obj, dict):
        return int("s" in obj or "e" in obj or "k" in obj) + sum(ir_nodes(v) for v in obj.values())
    if isinstance(obj, list):
        return sum(ir_nodes(v) for v in obj)
    return 0


def test_ir_size_does_not_depend_on_trip_counts(tmp_path, builds):
    sizes = []
    for trips in (10, 10 ** 6):
        mod, _ = load(tmp_path, TRIPS_SRC.format(trips=trips))
        prog = mod.k.compile(torch.zeros(16), torch.zeros(16))
        sizes.append(ir_nodes(prog.program))
        assert json.dumps(prog.program).count('"s": "for"') == 2
    assert sizes[0] == sizes[1]


# ---------------------------------------------------------------- small constructs

def test_const_static_print_and_helper_cache_key(tmp_path, builds, capsys):
    src = """\
        import pypto.language as pl

        @pl.jit.inline
        def helper(t):
            return pl.const(3, pl.INT32)

        @pl.jit.inline
        def other(t):
            return pl.const(1.5, pl.FP16)

        @pl.jit
        def k(x: pl.Tensor[[4, 2], pl.BF16]):
            pl.static_print("rows:", x.shape[0], x)
            v = helper(x)
        """
    mod, path = load(tmp_path, src)
    first = mod.k.compile(torch.zeros(4, 2, dtype=torch.bfloat16))
    assert capsys.readouterr().out == (
        "[static_print] %s:13: rows: x.shape[0] = 4 x = tensor[[4, 2], bfloat16]\n" % path)
    assert first.program["functions"][0]["body"] == [
        {"s": "assign", "line": 5, "slot": 1, "value": c("int32", 3)}]
    # The sources of the spliced helpers are part of the cache key.
    mod.helper = mod.other
    second = mod.k.compile(torch.zeros(4, 2, dtype=torch.bfloat16))
    assert second is not first
    assert second.program["functions"][0]["body"] == [
        {"s": "assign", "line": 9, "slot": 1, "value": c("fp16", 1.5)}]


def test_errors_inside_a_helper_name_the_helpers_file(tmp_path, builds, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "bad_helper.py").write_text(
        "import pypto.language as pl\n\n\n@pl.jit.inline\ndef h(t):\n    return t ** 2\n")
    src = """\
        import pypto.language as pl
        from bad_helper import h

        @pl.jit
        def k(x: pl.Tensor[[4], pl.FP32]):
            y = h(x)
        """
    mod, _ = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(4))
    assert first_line(info.value) == ("%s:6: operator '**' is not supported in a kernel"
                               % os.path.abspath(str(tmp_path / "bad_helper.py")))
