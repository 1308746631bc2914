"""What recording the chip swimlane and the task graph cost a dispatch (issue 15: <= 5 % when
on, nothing measurable when off). Prints ratios measured in one run; never asserts on time.

    .venv/bin/python tests/bench/bench_dfx.py [--rounds N] [--tasks N] [--side N]
                                              [--whole-run | --instructions]

--side sets each task's tiles (SIDE x SIDE fp32, default 16: ~3 us tasks, the recording's
worst case; 256 gives tasks of ~40 us, nearer a real kernel's).

One process runs golden.run on a kernel of many small tasks (one pl.at region each) with
no DFX key, enable_chip_swimlane=4 and enable_dep_gen (each task's windows recorded), each
round in a rotated order, and times the runtime stage (from when its "[RUN] runtime ..."
line is written to when its "done" line is). Each round's configurations run back to back,
so the ratio of a round's times is the least disturbed by a shared machine's slow spells:
the bench prints the median of these ratios and their quartiles. The kernel's build
directory (where the DFX files go) is on /dev/shm when there is one, so that no round
inherits the disk writeback of the one before.

--instructions counts instead, under valgrind's callgrind, the instructions the dispatch
executes with each key (a fresh process each, a few thousand tasks: valgrind runs ~50x
slower): a ratio no other load on the machine moves, though it does not see cache misses
or page faults.

--whole-run measures instead what a whole run costs with each key, writing its files
included: each configuration once in a fresh process, its wall time and peak RSS as ratios
to the run without DFX.
"""

import argparse
import contextlib
import io
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]

KERNEL = """
import pypto.language as pl

@pl.jit
def many(x: pl.Tensor[[SIDE, SIDE], pl.FP32], y: pl.Out[pl.Tensor[[SIDE, SIDE], pl.FP32]]):
    for i in pl.range(0, TASKS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add"):
            y[0:SIDE, :] = pl.add(x[0:SIDE, :], 1.0)
    return y
"""


def kernel_and_specs(tmp, tasks, side):
    """The kernel of `tasks` one-region tasks on SIDE x SIDE tiles, written to `tmp` and
    imported, and its specs."""
    import torch

    import golden
    os.environ["PYPTO_PROG_BUILD_DIR"] = tmp
    path = Path(tmp) / "dfx_kernel.py"
    path.write_text(textwrap.dedent(KERNEL).replace("TASKS", str(tasks)).replace("SIDE", str(side)))
    sys.path.insert(0, tmp)
    import dfx_kernel

    return dfx_kernel.many, [golden.TensorSpec("x", [side, side], torch.float32, init_value=torch.randn),
                             golden.TensorSpec("y", [side, side], torch.float32)]


CONFIGS = {"off": {}, "swimlane 4": {"enable_chip_swimlane": 4}, "dep_gen": {"enable_dep_gen": True}}
# Where the build directories go: memory, when the machine has it.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None
# The function callgrind counts in (--instructions): the dispatch, set-up to read-back.
DISPATCH = "pypto_golden::sim::dispatch(pypto_golden::sim::DispatchSession&*"


class StageClock(io.StringIO):
    """Captures the run's output, noting when the runtime stage's start and end lines are
    written (the native core writes them through sys.stdout as the stage starts and ends)."""

    def __init__(self):
        super().__init__()
        self.marks = []

    def write(self, s):
        if s.startswith("[RUN] runtime "):
            self.marks.append(time.perf_counter())
        return super().write(s)

    def seconds(self):
        return self.marks[1] - self.marks[0]


def run_once(kernel, specs, name):
    """One golden.run with configuration `name`; the seconds of its runtime stage."""
    import golden
    out = StageClock()
    with contextlib.redirect_stdout(out):
        result = golden.run(fn=kernel, specs=specs, golden_fn=lambda v: v["y"].copy_(v["x"] + 1),
                            config={"platform": "a2a3sim", **CONFIGS[name]})
    assert result.passed, result.error
    return out.seconds()


def one_run(tasks, side, name):
    """Child process: one whole golden.run with configuration `name`; prints its wall time
    and peak RSS as JSON."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        kernel, specs = kernel_and_specs(tmp, tasks, side)
        start = time.perf_counter()
        run_once(kernel, specs, name)
        wall = time.perf_counter() - start
    print(json.dumps({"wall_s": wall, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def instruction_counts(tasks, side):
    """Each configuration's dispatch under callgrind in a fresh process: instructions."""
    if not shutil.which("valgrind"):
        sys.exit("bench_dfx: --instructions needs valgrind (apt-get install valgrind)")
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CONFIGS:
            proc = subprocess.run(
                ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=" + DISPATCH,
                 "--callgrind-out-file=" + os.path.join(tmp, "callgrind.out"), sys.executable, __file__,
                 "--child", name, "--tasks", str(tasks), "--side", str(side)],
                capture_output=True, text=True)
            found = re.search(r"Collected : (\d+)", proc.stderr)
            if proc.returncode != 0 or not found:
                sys.exit("bench_dfx: the %s run under callgrind failed:\n%s" % (name, proc.stderr[-2000:]))
            counts[name] = int(found.group(1))
    print("instructions of a dispatch of %d one-region tasks on %dx%d tiles, under callgrind:" % (tasks, side, side))
    for name, n in counts.items():
        print("  %-10s %12d (x%.3f)" % (name, n, n / counts["off"]))
    for name in ("swimlane 4", "dep_gen"):
        print("recording cost, %s: on / off = %.3f in instructions (target <= 1.05)" % (
            name, counts[name] / counts["off"]))


def whole_runs(tasks, side):
    stats = {}
    for name in CONFIGS:
        proc = subprocess.run([sys.executable, __file__, "--child", name, "--tasks", str(tasks), "--side", str(side)],
                              capture_output=True, text=True, check=True)
        stats[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    print("whole run of %d one-region tasks on %dx%d tiles (compile, golden, dispatch, DFX files), one process "
          "each:" % (tasks, side, side))
    for name, st in stats.items():
        print("  %-10s wall %6.2f s (x%.2f)  peak RSS %7.1f MB (x%.2f)" % (
            name, st["wall_s"], st["wall_s"] / stats["off"]["wall_s"], st["peak_rss_mb"],
            st["peak_rss_mb"] / stats["off"]["peak_rss_mb"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--tasks", type=int, default=None, help="default 150000 (5000 with --instructions)")
    ap.add_argument("--side", type=int, default=16, help="each task adds SIDE x SIDE fp32 tiles")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--whole-run", action="store_true")
    mode.add_argument("--instructions", action="store_true")
    ap.add_argument("--child", choices=list(CONFIGS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tasks is None:
        args.tasks = 5000 if args.instructions else 150000
    if args.child:
        return one_run(args.tasks, args.side, args.child)
    if args.whole_run:
        return whole_runs(args.tasks, args.side)
    if args.instructions:
        return instruction_counts(args.tasks, args.side)
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        kernel, specs = kernel_and_specs(tmp, args.tasks, args.side)
        run_once(kernel, specs, "off")  # compile and warm up
        names = list(CONFIGS)
        times = {name: [] for name in names}
        for r in range(args.rounds):
            # Each round starts with another configuration: a run is slower after one that
            # wrote large files (freed memory is faulted in again), which a fixed order
            # would charge to the same configuration every time.
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(run_once(kernel, specs, name))
    print("dispatch of %d one-region tasks on %dx%d tiles, %d rounds; median seconds: %s" % (
        args.tasks, args.side, args.side, args.rounds,
        ", ".join("%s %.3f" % (name, statistics.median(t)) for name, t in times.items())))
    for name in ("swimlane 4", "dep_gen"):
        ratios = [on / off for on, off in zip(times[name], times["off"])]
        q1, median, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        print("recording cost, %s: on / off = %.3f, median of the rounds' ratios (quartiles %.3f, %.3f; "
              "target <= 1.05)" % (name, median, q1, q3))


if __name__ == "__main__":
    main()
