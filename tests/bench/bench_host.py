"""Benchmarks of the native host (issue: host end to end). Prints ratios against baselines
measured in the same run; never asserts on time.

    .venv/bin/python tests/bench/bench_host.py [--rounds N]

1. cold start: wall time of `pypto-golden samples/hello_world.py -p a2a3sim` over
   `python -c "import torch"` of the same interpreter (target <= 1.3).
2. dispatch: median simulator dispatch of hello_world over the median of its golden
   (`y[:] = x + a`, eager torch) at the sample's size (target <= 2.0).
3. fixed cost: median dispatch of a one-task kernel on an [8, 64] tile (what a dispatch
   costs besides its work; target <= 10 us), beside the same add in eager torch.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
HOST = BUILD / "bin" / "pypto-golden"
PYTHON = sys.executable  # the interpreter the build was made with (.venv/bin/python)


def wall(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def cold_start(rounds):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYPTO_PROG_BUILD_DIR=tmp)
        env.pop("PYTHONPATH", None)
        host_cmd = [str(HOST), str(REPO / "samples" / "hello_world.py"), "-p", "a2a3sim"]
        torch_cmd = [PYTHON, "-c", "import torch"]
        wall(host_cmd, env)  # warm the page cache for both
        wall(torch_cmd, env)
        host_times, torch_times = [], []
        for _ in range(rounds):  # interleaved, so drift hits both alike
            torch_times.append(wall(torch_cmd, env))
            host_times.append(wall(host_cmd, env))
    h, t = statistics.median(host_times), statistics.median(torch_times)
    print(f"cold start: pypto-golden hello_world {h * 1e3:.0f} ms, python3 -c 'import torch' {t * 1e3:.0f} ms, "
          f"ratio {h / t:.2f} (target <= 1.30)")


def dispatch(rounds):
    sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python"), str(REPO / "samples")]
    import torch

    import golden  # noqa: F401  (sets the golden's torch threads, as in a real run)
    import hello_world as hw

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYPTO_PROG_BUILD_DIR"] = tmp
        x = torch.randn(hw.ROWS, hw.COLS)
        y = torch.zeros(hw.ROWS, hw.COLS)
        prog = hw.hello_world.compile(x, 1.5, y)

        def timed(fn):
            samples = []
            for _ in range(rounds):
                start = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - start)
            return statistics.median(samples)

        def golden_once():
            y[:] = x + 1.5

        for _ in range(10):
            prog(x, 1.5, y)
            golden_once()
        sim = timed(lambda: prog(x, 1.5, y))
        ref = timed(golden_once)
        print(f"dispatch: simulator {sim * 1e6:.0f} us, golden {ref * 1e6:.0f} us "
              f"(torch threads {torch.get_num_threads()}), ratio {sim / ref:.2f} (target <= 2.00)")


ONE_TASK = """
import pypto.language as pl


@pl.jit
def one_task(x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="add"):
        y[:, :] = pl.add(x[:, :], 1.0)
    return y
"""


def fixed_cost(rounds):
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYPTO_PROG_BUILD_DIR"] = tmp
        Path(tmp, "one_task_kernel.py").write_text(ONE_TASK)
        sys.path.insert(0, tmp)
        import one_task_kernel

        x, y = torch.randn(8, 64), torch.zeros(8, 64)
        prog = one_task_kernel.one_task.compile(x, y)
        for _ in range(100):
            prog(x, y)
        samples, ref = [], []
        for _ in range(rounds * 10):  # interleaved, so drift hits both alike
            start = time.perf_counter()
            prog(x, y)
            samples.append(time.perf_counter() - start)
            start = time.perf_counter()
            torch.add(x, 1.0, out=y)
            ref.append(time.perf_counter() - start)
    sim, eager = statistics.median(samples), statistics.median(ref)
    print(f"fixed cost: one-task dispatch {sim * 1e6:.1f} us (target <= 10), eager torch.add of the tile "
          f"{eager * 1e6:.1f} us, ratio {sim / eager:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="dispatch rounds (cold start uses rounds/20)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, {os.uname().machine}")
    cold_start(max(3, args.rounds // 20))
    dispatch(args.rounds)
    fixed_cost(args.rounds)


if __name__ == "__main__":
    main()
