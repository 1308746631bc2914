"""pl.system.syncall() in a pl.spmd / pl.parallel body: every block finishes the part before
the barrier before any block runs the part after it."""

import pytest
import torch

import golden
import pypto.language as pl
from golden import TensorSpec, run

B, C = 4, 16


@pl.jit
def rotate_rows(x: pl.Tensor[[B, C], pl.FP32], y: pl.Out[pl.Tensor[[B, C], pl.FP32]]):
    scratch = pl.create_tensor([B, C], dtype=pl.FP32)
    for blk in pl.spmd(B, name_hint="rotate", sync_start=True):
        doubled = pl.mul(x[blk : blk + 1, :], 2.0)  # lives on past the barrier
        scratch[blk : blk + 1, :] = doubled
        pl.system.syncall(core_type="mix")
        nxt = (blk + 1) % B  # written by another block before the barrier
        y[blk : blk + 1, :] = pl.add(scratch[nxt : nxt + 1, :], doubled)
    return y


def specs():
    return [TensorSpec("x", [B, C], torch.float32, init_value=torch.randn), TensorSpec("y", [B, C], torch.float32)]


def golden_rotate(v):
    v["y"][:] = 2 * v["x"].roll(-1, dims=0) + 2 * v["x"]


@pytest.mark.parametrize("shuffle", ["0", "1"])
def test_a_barrier_splits_the_body_into_phases_run_for_every_block(tmp_path, monkeypatch, shuffle):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    monkeypatch.setenv("PYPTO_SIM_SHUFFLE", shuffle)
    for _ in range(3):
        assert run(fn=rotate_rows, specs=specs(), golden_fn=golden_rotate).passed


def test_the_barrier_is_in_the_ir(tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    compiled = rotate_rows.compile(torch.zeros(B, C), torch.zeros(B, C))
    program = json.loads((compiled.output_dir / "sim_program.json").read_text())
    body = program["functions"][0]["body"]
    loop = next(s for s in body if s["s"] == "for")
    assert [s["s"] for s in loop["body"]].count("barrier") == 1


@pl.jit
def barrier_in_a_branch(x: pl.Tensor[[B, C], pl.FP32], y: pl.Out[pl.Tensor[[B, C], pl.FP32]]):
    for blk in pl.spmd(B, name_hint="bad"):
        if blk > 0:
            pl.system.syncall(core_type="mix")
        y[blk : blk + 1, :] = pl.add(x[blk : blk + 1, :], 1.0)
    return y


def test_a_barrier_inside_a_branch_of_the_body_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    with pytest.raises(golden.KernelError) as info:
        run(fn=barrier_in_a_branch, specs=specs())
    line = open(__file__).read().splitlines().index('            pl.system.syncall(core_type="mix")') + 1
    assert str(info.value) == (
        "%s:%d: pl.system.syncall is supported directly in the body of a pl.spmd / pl.parallel loop, not inside "
        "an if or another loop there: the simulator runs the parts of the body between barriers one after "
        "another, each for every iteration (blk=1)" % (__file__, line))
