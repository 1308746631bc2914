"""Many golden.run calls in one process hold no files open between runs: every descriptor a
run opens (build files, snapshots, the program cache's stat) is closed when it returns.
Memory over 200 runs is measured, not asserted, by tests/bench/bench_load.py."""

import os

import torch

import pypto.language as pl
from golden import TensorSpec, run

N = 64


@pl.jit
def double(x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    for r in pl.parallel(0, N, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="double"):
            y[r : r + 16, :] = pl.add(x[r : r + 16, :], x[r : r + 16, :])
    return y


def golden_fn(v):
    v["y"][:] = v["x"] + v["x"]


def open_fds():
    return sorted(os.listdir("/proc/self/fd"))


def test_runs_in_a_row_leave_no_file_descriptor_open(builds):
    specs = [TensorSpec("x", [N, N], torch.float32, init_value=torch.randn), TensorSpec("y", [N, N], torch.float32)]

    def one_run(**options):
        result = run(fn=double, specs=specs, golden_fn=golden_fn, **options)
        assert result.passed, result.error
        return result

    for _ in range(3):  # warm-up: the device's workers, torch's thread pools
        one_run()
    data = one_run(save_data=True).work_dir / "data"
    before = open_fds()
    for _ in range(10):  # the three kinds of run: fresh, saving its data, replaying data
        one_run()
        one_run(save_data=True)
        one_run(golden_data=data)
    assert open_fds() == before
