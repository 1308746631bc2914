"""The frontend's constructs executed on the simulator (in-process, through golden.run):
zero-trip init_values loops, runtime loop bounds, pl.spmd with @pl.jit.incore helpers,
inline helpers writing into the caller's tensors through views, and a @pl.program."""

import pytest
import torch

import pypto.language as pl
from golden import ScalarSpec, TensorSpec, run

N = 32


@pl.jit
def carried(
    x: pl.Tensor[[N], pl.FP32],
    n: pl.Scalar[pl.INT64],
    y: pl.Out[pl.Tensor[[N], pl.FP32]],
):
    # acc starts as x; each trip adds 1; a zero-trip loop leaves acc_out = x.
    for i, (acc,) in pl.range(n, init_values=(x,)):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
            acc2 = pl.add(acc, 1.0)
        acc_out = pl.yield_(acc2)
    y[:] = acc_out
    return y


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_init_values_loop_with_a_runtime_bound(trips):
    specs = [TensorSpec("x", [N], torch.float32, init_value=torch.randn),
             ScalarSpec("n", torch.int64, trips, compile_runtime=True),
             TensorSpec("y", [N], torch.float32)]

    def golden(v):
        v["y"][:] = v["x"] + float(v["n"])

    result = run(fn=carried, specs=specs, golden_fn=golden)
    assert result.passed, result.error


@pl.jit.incore
def block_add(src, dst, width):
    b = pl.get_block_idx()
    dst[b * width : b * width + width] = pl.add(src[b * width : b * width + width],
                                                pl.get_block_num())


@pl.jit.inline
def fill(dst, src, value):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fill"):
        dst[:] = pl.add(src, value)
    return dst


@pl.jit
def spliced(
    x: pl.Tensor[[N], pl.FP32],
    a: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[N], pl.FP32]],
    z: pl.Out[pl.Tensor[[N], pl.FP32]],
):
    with pl.spmd(4) as tid:  # noqa: F841  (a TaskId: accepted, no effect)
        block_add(x, y, N // 4)
    # Views of the caller's Out tensor: the helper's writes land in z.
    lo = fill(z[0 : N // 2], x[0 : N // 2], a)  # noqa: F841  (the returned view)
    fill(z[N // 2 : N], x[N // 2 : N], 2.0)
    for b in pl.spmd(2):
        with pl.at(level=pl.Level.CORE_GROUP):
            z[b : b + 1] = pl.add(z[b : b + 1], 100.0)
    return y, z


def test_spmd_incore_and_inline_helpers():
    specs = [TensorSpec("x", [N], torch.float32, init_value=torch.randn),
             ScalarSpec("a", torch.float32, 0.5),
             TensorSpec("y", [N], torch.float32),
             TensorSpec("z", [N], torch.float32)]

    def golden(v):
        v["y"][:] = v["x"] + 4.0
        v["z"][: N // 2] = v["x"][: N // 2] + v["a"]
        v["z"][N // 2:] = v["x"][N // 2:] + 2.0
        v["z"][:2] += 100.0

    result = run(fn=spliced, specs=specs, golden_fn=golden)
    assert result.passed, result.error


ROWS = 64


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def add_rows(self, x, out, r, s):
        out[r : r + 16, :] = pl.add(x[r : r + 16, :], s)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, 8], pl.FP32],
        s: pl.Scalar[pl.FP32],
        y: pl.Out[pl.Tensor[[ROWS, 8], pl.FP32]],
    ):
        for r in pl.parallel(0, ROWS, 16):
            y = self.add_rows(x, y, r, s)
        return y


@pytest.mark.parametrize("value", [1.5, -3.0])
def test_program_runs_with_a_runtime_scalar(value):
    specs = [TensorSpec("x", [ROWS, 8], torch.float32, init_value=torch.randn),
             ScalarSpec("s", torch.float32, value),
             TensorSpec("y", [ROWS, 8], torch.float32)]

    def golden(v):
        v["y"][:] = v["x"] + v["s"]

    result = run(fn=RowBlocks, specs=specs, golden_fn=golden)
    assert result.passed, result.error


CHECK_TAIL = False


@pl.jit
def mark_positive(
    x: pl.Tensor[[N], pl.FP32],
    n: pl.Scalar[pl.INT64],
    y: pl.Out[pl.Tensor[[N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mark"):
        y[:] = pl.mul(x, 0.0)
        # One trip past the end: `and` / `or` must stop before reading x[N].
        for i in pl.range(N + 1):
            if i < n and pl.read(x, [i]) > 0.0:
                pl.write(y, [i], 1.0)
            if i >= n or pl.read(x, [i]) > 0.0:
                pass
            else:
                pl.write(y, [i], -1.0)
            # A compile-time False lhs: the right side is never compiled into the program.
            if CHECK_TAIL and pl.read(x, [N + 7]) > 0.0:
                pl.write(y, [0], 5.0)
    return y


def test_and_or_short_circuit_at_run_time_and_in_folding():
    specs = [TensorSpec("x", [N], torch.float32, init_value=torch.randn),
             ScalarSpec("n", torch.int64, N, compile_runtime=True),
             TensorSpec("y", [N], torch.float32)]

    def golden(v):
        v["y"][:] = (v["x"] > 0).float() - (v["x"] <= 0).float()

    result = run(fn=mark_positive, specs=specs, golden_fn=golden, rtol=0, atol=0)
    assert result.passed, result.error


@pl.jit
def bool_of_or(n: pl.Scalar[pl.INT64], y: pl.Out[pl.Tensor[[4], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="or_value"):
        m = n or 7
        y[:] = pl.full([4], pl.INT32, 0)
        if m == 1:  # PyPTO's `or` is a BOOL: True, which compares equal to 1, not n
            pl.write(y, [0], 1)
    return y


def test_or_yields_a_bool_as_in_pypto():
    specs = [ScalarSpec("n", torch.int64, 3, compile_runtime=True), TensorSpec("y", [4], torch.int32)]

    def golden(v):
        v["y"][:] = torch.tensor([1, 0, 0, 0], dtype=torch.int32)

    result = run(fn=bool_of_or, specs=specs, golden_fn=golden, rtol=0, atol=0)
    assert result.passed, result.error
