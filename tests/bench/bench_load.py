"""Many runs in one process: does the harness hold on to memory or files run after run?
Prints the figures; never asserts (tests/python/test_load.py asserts what is exact).

    .venv/bin/python tests/bench/bench_load.py [--runs 200] [--mib 4]

One interpreter calls golden.run `--runs` times on a tiled add of two `--mib` MiB inputs
(compile cached after the first run, a fresh build directory per run, as a user's loop
over kernels makes), and prints, after the first 10 runs (the warm-up: allocator pools,
torch's caches, the compiled program) and then at every quarter: the resident set (VmRSS),
its peak (VmHWM) and the open file descriptors. The ratio that matters is the RSS at the
end against the RSS after the warm-up: 1.00 is no growth; a leak of one run's output (4 MiB
at the default size) would add 800 MiB over 200 runs.
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "pylib"))
sys.path.insert(0, str(REPO / "build" / "python"))


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # kB -> MiB
    return float("nan")


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--mib", type=int, default=4, help="size of each input tensor")
    args = parser.parse_args()
    os.environ.setdefault("PYPTO_PROG_BUILD_DIR", tempfile.mkdtemp(prefix="bench_load_"))

    import torch
    import pypto.language as pl
    from golden import TensorSpec, run

    rows = args.mib * (1 << 20) // (4 * 256)

    @pl.jit
    def add(x: pl.Tensor[[rows, 256], pl.FP32], w: pl.Tensor[[rows, 256], pl.FP32],
            y: pl.Out[pl.Tensor[[rows, 256], pl.FP32]]):
        for r in pl.parallel(0, rows, 64):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="add"):
                y[r : r + 64, :] = pl.add(x[r : r + 64, :], w[r : r + 64, :])
        return y

    def golden(v):
        v["y"][:] = v["x"] + v["w"]

    specs = [TensorSpec("x", [rows, 256], torch.float32, init_value=torch.randn),
             TensorSpec("w", [rows, 256], torch.float32, init_value=torch.randn),
             TensorSpec("y", [rows, 256], torch.float32)]
    marks = {10, args.runs // 4, args.runs // 2, 3 * args.runs // 4, args.runs}
    base = None
    print(f"{'runs':>6} {'RSS MiB':>9} {'peak MiB':>9} {'fds':>5} {'RSS/after warm-up':>18}")
    failures = 0
    for n in range(1, args.runs + 1):
        with contextlib.redirect_stdout(io.StringIO()):  # the stage lines of 200 runs
            failures += not run(fn=add, specs=specs, golden_fn=golden).passed
        if n in marks:
            rss = status("VmRSS")
            base = base or rss
            print(f"{n:>6} {rss:>9.1f} {status('VmHWM'):>9.1f} {open_fds():>5} {rss / base:>18.2f}")
    print(f"failed runs: {failures} of {args.runs}")


if __name__ == "__main__":
    main()
