"""What recording the chip swimlane and the task graph cost a dispatch (issue 15: <= 5 % when
on, nothing measurable when off). Prints ratios measured in one run; never asserts on time.

    .venv/bin/python tests/bench/bench_dfx.py [--rounds N] [--tasks N]

One process runs golden.run on a kernel of many small tasks (one pl.at region each) with
no DFX key, enable_chip_swimlane=4 and enable_dep_gen (each task's windows recorded),
interleaved (each round in a rotated order), and compares the medians of the
runtime stage (read from its "[RUN] runtime done (X.XXs)" line, so the kernel is sized to
take about half a second).
"""

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]

KERNEL = """
import pypto.language as pl

@pl.jit
def many(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    for i in pl.range(0, TASKS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add"):
            y[0:16, :] = pl.add(x[0:16, :], 1.0)
    return y
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--tasks", type=int, default=150000)
    args = ap.parse_args()
    import torch

    import golden
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYPTO_PROG_BUILD_DIR"] = tmp
        path = Path(tmp) / "dfx_kernel.py"
        path.write_text(textwrap.dedent(KERNEL).replace("TASKS", str(args.tasks)))
        sys.path.insert(0, tmp)
        import dfx_kernel

        specs = [golden.TensorSpec("x", [16, 16], torch.float32, init_value=torch.randn),
                 golden.TensorSpec("y", [16, 16], torch.float32)]

        def runtime(keys):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                result = golden.run(fn=dfx_kernel.many, specs=specs, golden_fn=lambda v: v["y"].copy_(v["x"] + 1),
                                    config={"platform": "a2a3sim", **keys})
            assert result.passed, result.error
            line = next(s for s in out.getvalue().splitlines() if s.startswith("[RUN] runtime done"))
            return float(line.split("(")[1].rstrip("s)"))

        configs = {"off": {}, "swimlane 4": {"enable_chip_swimlane": 4}, "dep_gen": {"enable_dep_gen": True}}
        runtime({})  # compile and warm up
        times = {name: [] for name in configs}
        names = list(configs)
        for r in range(args.rounds):
            # Each round starts with another configuration: a run is slower after one that
            # wrote large files (freed memory is faulted in again), which a fixed order
            # would charge to the same configuration every time.
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(runtime(configs[name]))
    medians = {name: statistics.median(t) for name, t in times.items()}
    print("dispatch of %d one-region tasks, medians: %s" % (
        args.tasks, ", ".join("%s %.3f s" % (name, m) for name, m in medians.items())))
    for name in ("swimlane 4", "dep_gen"):
        print("recording cost, %s: on / off = %.3f (target <= 1.05)" % (name, medians[name] / medians["off"]))


if __name__ == "__main__":
    main()
