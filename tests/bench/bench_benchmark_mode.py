"""Benchmark of benchmark mode (issue: benchmark mode). Prints ratios and variations measured
in the same run; never asserts on time.

    .venv/bin/python tests/bench/bench_benchmark_mode.py

1. harness overhead per timed dispatch: the native loop (PYPTO_BENCH, median host_us of a
   kernel with one tiny tile op) against a Python loop calling the compiled program 100
   times; the native loop must add <= 2 us beyond the simulator's own work.
2. stability: the reported median of 100 rounds in two runs in a row (target: <= 10 %).
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]

import torch  # noqa: E402

import pypto.language as pl  # noqa: E402
from golden import TensorSpec, run  # noqa: E402


@pl.jit
def tiny(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="one_tile"):
        y[:, :] = pl.add(x[:, :], 1.0)
    return y


def specs():
    return [TensorSpec("x", [8, 8], torch.float32, init_value=torch.randn), TensorSpec("y", [8, 8], torch.float32)]


def native_median():
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        result = run(fn=tiny, specs=specs(), golden_fn=lambda v: v["y"].copy_(v["x"] + 1.0))
    assert result.passed, result.error
    return result.bench.median


def python_loop_median(rounds=100):
    x, y = torch.randn(8, 8), torch.zeros(8, 8)
    prog = tiny.compile(x, y)
    for _ in range(5):
        prog(x, y)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        prog(x, y)
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(PYPTO_PROG_BUILD_DIR=tmp, PYPTO_BENCH="1", PYPTO_BENCH_ROUNDS="100", PYPTO_BENCH_WARMUP="5")
        first = native_median()
        second = native_median()
        loop = python_loop_median()
    print(f"machine: {os.cpu_count()} cores")
    print(f"per dispatch: native loop {first:.1f} us, Python loop over the compiled program {loop:.1f} us; "
          f"native loop is {loop - first:.1f} us cheaper, ratio {first / loop:.2f}")
    print(f"stability: medians of two runs {first:.1f} us and {second:.1f} us, variation "
          f"{abs(first - second) / min(first, second) * 100:.1f} % (target <= 10 %)")


if __name__ == "__main__":
    main()
