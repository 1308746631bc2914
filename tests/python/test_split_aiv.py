"""`for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.X)` regions and pl.aiv_shard: both AIV
lanes run a NONE body and a per-lane (pl.aiv_shard) data-parallel body, the lane's shard is
its ceiling half of rows / columns; a data-parallel body without a shard is the full-width
body once; located errors for the forms PyPTO rejects."""

import pytest
import torch

import pypto.language as pl
from golden import TensorSpec, run
from pypto.compiler import ir_text
from pypto.jit import KernelCompileError
from test_frontend import first_line, line_of, load

M, N = 5, 6  # odd rows: lane 1's UP_DOWN half has a row of padding


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


@pl.jit
def shards(x: pl.Tensor[[M, N], pl.FP32], w: pl.Tensor[[N, N], pl.FP32],
           rows: pl.Out[pl.Tensor[[M + 1, N], pl.FP32]], cols: pl.Out[pl.Tensor[[M, N], pl.FP32]],
           lanes: pl.Out[pl.Tensor[[2, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mm = pl.matmul(x, w)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            top = pl.aiv_shard(mm)  # rows [3 * aiv_id, 3 * aiv_id + 3) of a 5-row tile
            rows[aiv_id * 3:aiv_id * 3 + 3, :] = pl.fillpad(pl.exp(top), pl.PadValue.zero)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            cols[:, aiv_id * 3:aiv_id * 3 + 3] = pl.add(pl.aiv_shard(mm), pl.cast(aiv_id, pl.FP32))
        for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            whole = pl.aiv_shard(mm)  # NONE: the shape is kept
            lanes[lane:lane + 1, :] = pl.add(whole[0:1, :], pl.cast(pl.get_subblock_idx() * 10, pl.FP32))
    return rows, cols, lanes


def test_each_lane_gets_its_half_and_none_runs_both_lanes():
    specs = [TensorSpec("x", [M, N], torch.float32, init_value=torch.randn),
             TensorSpec("w", [N, N], torch.float32, init_value=torch.randn),
             TensorSpec("rows", [M + 1, N], torch.float32, init_value=7.0),
             TensorSpec("cols", [M, N], torch.float32),
             TensorSpec("lanes", [2, N], torch.float32)]

    def golden(v):
        mm = v["x"] @ v["w"]
        # Lane 1's shard is rows 3..5 of a 5-row tile: its last row is padding (valid 2 rows).
        v["rows"][:M] = torch.exp(mm)
        v["rows"][M] = 0.0
        v["cols"][:] = mm + torch.tensor([0.0] * 3 + [1.0] * 3)
        v["lanes"][:] = mm[0:1] + torch.tensor([[0.0], [10.0]])

    result = run(fn=shards, specs=specs, golden_fn=golden, rtol=1e-5, atol=1e-5)
    assert result.passed, result.error


def test_the_regions_ir():
    prog = shards.compile(torch.zeros(M, N), torch.zeros(N, N), torch.zeros(M + 1, N), torch.zeros(M, N),
                          torch.zeros(2, N))
    lines = ir_text.program_text(prog.program).splitlines()
    start = next(i for i, ln in enumerate(lines) if "mm = matmul" in ln)
    assert [ln.split("|", 1)[1] for ln in lines[start:start + 9]] == [
        "     mm = matmul(x, w)",
        "     for aiv_id in parallel(0, 2, 1):",
        "       top = load(mm, [aiv_id * ((dim(mm, 0) + 1) // 2), 0], [(dim(mm, 0) + 1) // 2, dim(mm, 1)])",
        "       rows[aiv_id * 3:(aiv_id * 3) + 3, :] = fillpad(exp(top), 'PadValue.zero')",
        "     for aiv_id in parallel(0, 2, 1):",
        "       cols[:, aiv_id * 3:(aiv_id * 3) + 3] = add(load(mm, [0, aiv_id * ((dim(mm, 1) + 1) // 2)], "
        "[dim(mm, 0), (dim(mm, 1) + 1) // 2]), cast(aiv_id, fp32))",
        "     for lane in parallel(0, 2, 1):",
        "       whole = mm",
        "       lanes[lane:lane + 1, :] = add(whole[0:1, :], cast(lane * 10, fp32))",
    ]


@pl.jit
def strided(x: pl.Tensor[[8, N], pl.FP32], y: pl.Out[pl.Tensor[[8, N], pl.FP32]]):
    # Outside any InCore region: the region is its own InCore task, as in PyPTO.
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
        for r in pl.range(aiv_id, 8, 2):
            y[r:r + 1, :] = pl.mul(x[r:r + 1, :], 2.0)
    with pl.at(level=pl.Level.CORE_GROUP):
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            y[0:8, :] = pl.add(y[0:8, :], 1.0)  # full width, halved by the compiler: once
    return y


def test_none_lanes_split_the_work_and_a_full_width_body_runs_once():
    specs = [TensorSpec("x", [8, N], torch.float32, init_value=torch.randn),
             TensorSpec("y", [8, N], torch.float32)]

    def golden(v):
        v["y"][:] = v["x"] * 2.0 + 1.0

    result = run(fn=strided, specs=specs, golden_fn=golden)
    assert result.passed, result.error
    body = strided.compile(torch.zeros(8, N), torch.zeros(8, N)).program["functions"][0]["body"]
    assert [s["s"] for s in body] == ["at", "at", "return"]
    assert body[0]["body"][0]["s"] == "for" and body[0]["body"][0]["kind"] == "parallel"
    assert [s["s"] for s in body[1]["body"]] == ["write"]  # no lane loop


def test_the_names_exist_as_in_pypto():
    assert [m.name for m in pl.SplitMode] == ["NONE", "UP_DOWN", "LEFT_RIGHT"]
    assert pl.tile.aiv_shard is pl.aiv_shard and pl.tile.aic_gather is pl.aic_gather
    with pytest.raises(RuntimeError, match=r"^pl.split_aiv\(\) was called from Python"):
        pl.split_aiv(2, mode=pl.SplitMode.NONE)


HEAD = """\
import pypto.language as pl


@pl.jit.inline
def shard_of(t):
    return pl.aiv_shard(t)


@pl.jit
def k(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
"""

FULL_WIDTH = ("the pl.split_aiv(mode=pl.SplitMode.UP_DOWN) region at line 12 has no pl.aiv_shard, so "
              "the compiler halves its tiles itself and its body is written at full width, where the "
              "AIV lane index has no meaning; use 'for aiv_id in pl.split_aiv(2, "
              "mode=pl.SplitMode.NONE):' (both lanes run the body, dispatching by aiv_id) or write "
              "the lane's operands with pl.aiv_shard")

# (body under the pl.at, text of the line the error points at, message)
ERRORS = [
    ("for a in pl.split_aiv(4, mode=pl.SplitMode.NONE):\n    y[0:1, :] = x[0:1, :]", "for a in",
     "pl.split_aiv(n) requires n == 2 (the AIV sub-core count is hardware-fixed at 2), got '4'"),
    ("for a in pl.split_aiv(2):\n    y[0:1, :] = x[0:1, :]", "for a in",
     "pl.split_aiv() requires mode= (pl.SplitMode.NONE for task-parallel lanes, pl.SplitMode.UP_DOWN / "
     "LEFT_RIGHT for data-parallel halving)"),
    ("for a in pl.split_aiv(2, mode=1):\n    y[0:1, :] = x[0:1, :]", "for a in",
     "pl.split_aiv(): mode must be a pl.SplitMode member (NONE, UP_DOWN or LEFT_RIGHT), got '1'"),
    ("for a in pl.split_aiv(2, 3, mode=pl.SplitMode.NONE):\n    y[0:1, :] = x[0:1, :]", "for a in",
     "pl.split_aiv() takes exactly one positional argument (n, the AIV sub-core count), got 2"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.NONE, chunk=2):\n    y[0:1, :] = x[0:1, :]", "for a in",
     "pl.split_aiv() got an unexpected keyword argument 'chunk'"),
    ("for a, b in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    y[0:1, :] = x[0:1, :]", "for a, b",
     "for ... in pl.split_aiv(...) must use a single loop variable, got 'a, b'"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    for b in pl.split_aiv(2, "
     "mode=pl.SplitMode.NONE):\n        y[0:1, :] = x[0:1, :]", "for b in",
     "nested 'for ... in pl.split_aiv(...)' is not allowed: the pl.split_aiv region at line 12 already "
     "represents the two AIV lanes"),
    ("t = pl.aiv_shard(x)", "t = pl.aiv_shard(x)",
     "pl.aiv_shard must be used inside a 'for aiv_id in pl.split_aiv(...)' loop, which supplies the "
     "split mode"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    t = pl.aiv_shard(x, x)", "t = pl.aiv_shard",
     "pl.aiv_shard() takes exactly one positional argument (the operand to shard)"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    t = pl.aiv_shard(x[0, 0])", "t = pl.aiv_shard",
     "pl.aiv_shard(): the operand must be a 2-D tile or tensor, got 'x[0, 0]' (a fp32 scalar)"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    y[0:8, :] = pl.add(x, pl.cast(a, pl.FP32))",
     "y[0:8, :] = pl.add", "'a': " + FULL_WIDTH),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    i = pl.get_subblock_idx()", "i = pl.get",
     "'pl.get_subblock_idx()': " + FULL_WIDTH),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    t = shard_of(x)", "return pl.aiv_shard(t)",
     "pl.aiv_shard() must be written directly in the body of the pl.split_aiv region at line 12 (not in "
     "a function it calls)"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    t = pl.aic_gather(x)", "t = pl.aic_gather",
     "pl.aic_gather() (the AIV lanes' values handed back to the cube) is not supported by the "
     "simulator; store each lane's result into a tensor instead"),
    ("for a in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    t = pl.add(x, 1.0)\ny[:, :] = t", "y[:, :] = t",
     "'t' was bound inside the pl.split_aiv() body at line 12, which runs once per AIV lane, so it has "
     "no single value after the region; to keep a lane's result, write it into a tensor"),
    ("t = x\nfor a in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    t = pl.add(x, 1.0)\ny[:, :] = t",
     "y[:, :] = t",
     "'t' was rebound inside the pl.split_aiv() body at line 13, which runs once per AIV lane, so here "
     "it still holds its value from before the region; to keep a lane's result, write it into a "
     "tensor"),
]


@pytest.mark.parametrize("body,at,detail", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_bad_forms_are_located_errors(tmp_path, builds, body, at, detail):
    src = HEAD + "".join("        " + ln + "\n" for ln in body.split("\n")) + "    return y\n"
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8, 8), torch.zeros(8, 8))
    assert first_line(info.value) == "%s:%d: %s" % (path, line_of(src, at), detail)
