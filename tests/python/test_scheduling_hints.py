"""Constructs that steer the device and change no value: `chunk=` / `chunk_policy=` on
pl.range / pl.parallel and the pl.prefetch ops. They leave the IR as without them, run to the
same results, and keep PyPTO's argument checks as located errors."""

import pytest
import torch

import pypto.language as pl
from golden import TensorSpec, run
from pypto.compiler import ir_text
from pypto.jit import KernelCompileError
from test_frontend import first_line, line_of, load

N = 64


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


@pl.jit
def hinted(x: pl.Tensor[[4, N], pl.FP32], w: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[4, N], pl.FP32]]):
    w_row = pl.reshape(w, [1, N])
    with pl.at(level=pl.Level.CORE_GROUP):
        ctx = pl.prefetch.make_context()
        evt = pl.prefetch.async_prefetch(w_row, ctx)
        pl.prefetch.async_prefetch(w, ctx)
        done = pl.prefetch.wait(evt, pl.prefetch.session(ctx))
        for r in pl.parallel(4, chunk=3):
            for c in pl.range(0, N, 16, chunk=2, chunk_policy="leading_full"):
                y[r:r + 1, c:c + 16] = pl.add(x[r:r + 1, c:c + 16], w_row[0:1, c:c + 16])
        if not done:
            y[0:1, 0:1] = pl.full([1, 1], pl.FP32, 7.0)
    return y


@pl.jit
def plain(x: pl.Tensor[[4, N], pl.FP32], w: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[4, N], pl.FP32]]):
    w_row = pl.reshape(w, [1, N])
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.parallel(4):
            for c in pl.range(0, N, 16):
                y[r:r + 1, c:c + 16] = pl.add(x[r:r + 1, c:c + 16], w_row[0:1, c:c + 16])
    return y


def test_hints_run_the_same_iterations_and_emit_no_ir():
    specs = [TensorSpec("x", [4, N], torch.float32, init_value=torch.randn),
             TensorSpec("w", [N], torch.float32, init_value=torch.randn),
             TensorSpec("y", [4, N], torch.float32)]

    def golden(v):
        v["y"][:] = v["x"] + v["w"]

    assert run(fn=hinted, specs=specs, golden_fn=golden).passed
    args = (torch.zeros(4, N), torch.zeros(N), torch.zeros(4, N))
    body = hinted.compile(*args).program["functions"][0]["body"]
    # The handles are `none` constants; wait is True, so the `if not done` is folded away.
    assert [s["s"] for s in body[1]["body"]] == ["assign", "assign", "assign", "for"]
    assert [s["value"] for s in body[1]["body"][:3]] == [
        {"e": "const", "dtype": "none", "v": None}] * 2 + [{"e": "const", "dtype": "bool", "v": True}]
    # The loops are those of the same kernel without the hints.
    def loops(prog):
        text = ir_text.program_text(prog.program).splitlines()
        return [ln.split("|", 1)[1] for ln in text if " for " in ln or " y[" in ln]
    assert loops(hinted.compile(*args)) == loops(plain.compile(*args)) == [
        "     for r in parallel(0, 4, 1):",
        "       for c in range(0, 64, 16):",
        "         y[r:r + 1, c:c + 16] = add(x[r:r + 1, c:c + 16], w_row[0:1, c:c + 16])"]


def test_the_prefetch_namespace_is_pypto_s():
    assert dir(pl.prefetch) == ["async_prefetch", "make_context", "session", "wait"]
    with pytest.raises(RuntimeError, match=r"^pl.prefetch.make_context\(\) was called from Python"):
        pl.prefetch.make_context()


HEAD = """\
import pypto.language as pl


@pl.jit
def k(x: pl.Tensor[[8], pl.FP32], m: pl.Tensor[[2, 4], pl.FP32], d: pl.Tensor[[pl.dynamic("n")], pl.FP32]):
    n = d.shape[0]  # a run-time value
    with pl.at(level=pl.Level.CORE_GROUP):
        ctx = pl.prefetch.make_context()
        evt = pl.prefetch.async_prefetch(x, ctx)
"""

ERRORS = [
    ("for i in pl.parallel(4, chunk=n):\n    pass",
     "pl.parallel(): chunk must be a compile-time constant positive integer, got 'n'"),
    ("for i in pl.range(4, chunk=0):\n    pass", "pl.range(): chunk must be a positive integer, got 0"),
    ("for i in pl.range(4, chunk=2, chunk_policy='eager'):\n    pass",
     "pl.range(): chunk_policy must be one of the string literals \"guarded\" or \"leading_full\", got "
     "''eager''"),
    ("for i in pl.unroll(4, chunk=2):\n    pass", "pl.unroll() got an unexpected keyword argument 'chunk'"),
    ("for i in pl.pipeline(4, stage=2, chunk=2):\n    pass",
     "pl.pipeline() got an unexpected keyword argument 'chunk'"),
    ("e = pl.prefetch.async_prefetch(m, ctx)",
     "pl.prefetch.async_prefetch(): src 'm' must be a flat contiguous logical 1-D GM region (all "
     "dimensions except the last must be 1), but dimension 0 is 2; reshape the tensor to [N] or "
     "[1, ..., N] before prefetching"),
    ("e = pl.prefetch.async_prefetch(d, ctx)",
     "pl.prefetch.async_prefetch(): src 'd' must have a fully static shape, but dimension 0 is dynamic; "
     "async prefetch needs a compile-time byte extent"),
    ("e = pl.prefetch.async_prefetch(n, ctx)",
     "pl.prefetch.async_prefetch(): src must be a GM tensor (prefetch reads global memory), got 'n' (a "
     "int64 scalar)"),
    ("e = pl.prefetch.async_prefetch(pl.reshape(m, [8]), ctx)",
     "pl.prefetch.async_prefetch(): src must be a tensor variable, got the expression 'pl.reshape(m, [8])'; "
     "assign it to a name first"),
    ("e = pl.prefetch.async_prefetch(x, x)",
     "pl.prefetch.async_prefetch(): ctx must be a PrefetchAsyncContext (the result of "
     "pl.prefetch.make_context()), got 'x' (a tensor)"),
    ("e = pl.prefetch.async_prefetch(x, evt)",
     "pl.prefetch.async_prefetch(): ctx must be a PrefetchAsyncContext (the result of "
     "pl.prefetch.make_context()), got 'evt' (an AsyncEvent)"),
    ("e = pl.prefetch.async_prefetch(x)",
     "pl.prefetch.async_prefetch() requires exactly 2 positional argument(s) (src, ctx), but got 1"),
    ("e = pl.prefetch.async_prefetch(x, ctx=ctx)",
     "pl.prefetch.async_prefetch() takes no keyword arguments, got 'ctx='"),
    ("c = pl.prefetch.make_context(x)",
     "pl.prefetch.make_context() requires exactly 0 positional argument(s) (no arguments), but got 1"),
    ("s = pl.prefetch.session(evt)",
     "pl.prefetch.session(): ctx must be a PrefetchAsyncContext (the result of pl.prefetch.make_context()), "
     "got 'evt' (an AsyncEvent)"),
    ("f = pl.prefetch.wait(evt, ctx)",
     "pl.prefetch.wait(): session must be an AsyncSession (the result of pl.prefetch.session()), got 'ctx' "
     "(a PrefetchAsyncContext)"),
]


@pytest.mark.parametrize("body,detail", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_bad_forms_are_located_errors(tmp_path, builds, body, detail):
    src = HEAD + "".join("        " + ln + "\n" for ln in body.split("\n"))
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(2, 4), torch.zeros(8))
    assert first_line(info.value) == "%s:%d: %s" % (path, line_of(src, body.split("\n")[0].strip()), detail)


def test_prefetch_runs_inside_an_incore_region(tmp_path, builds):
    src = HEAD.split("    with pl.at")[0] + "    ctx = pl.prefetch.make_context()\n"
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(2, 4), torch.zeros(8))
    assert first_line(info.value) == (
        "%s:%d: pl.prefetch.make_context() must be inside an InCore region ('with pl.at(...)', a pl.spmd body "
        "or a @pl.jit.incore function): the prefetch ops run on the vector core"
        % (path, line_of(src, "ctx = pl.prefetch")))
