"""Sort kernels: the AVX2 and auto (fastest supported: AVX-512 here if the CPU has it) paths
against the portable scalar path, in the same run. Prints times and ratios; never asserts
on time.

    .venv/bin/python tests/bench/bench_sort.py [--rounds N] [--repeats N]

Each ISA runs in its own process (PYPTO_SIM_SORT_ISA is read once per process), single
threaded (PYPTO_SIM_THREADS=1), at samples/topk.py's size:
1. per op: whole-matrix kernels on [256, 512] scores that stop after sort32, after
   mrgsort(block_len=64) and after mrgsort(block_len=256); an op's time is the difference
   to the kernel before it (sort32's: a kernel that sorts twice against one that sorts
   once), so upload, download and dispatch cancel out.
2. samples/topk.py: one simulator dispatch (a row at a time, as the sample does) over
   torch.topk on the same scores (target <= 2.0).
The parent alternates the processes `--repeats` times and keeps each best median. On a CPU
without AVX2 the avx2 process runs the scalar path (PYPTO_SIM_SORT_ISA=avx2 falls back).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
PYTHON = sys.executable  # the interpreter the build was made with (.venv/bin/python)
ROWS, COLS = 256, 512


def kernels(pl):
    """One kernel per stage; each ends where the stage's op would run next."""
    scores_t = pl.Tensor[[ROWS, COLS], pl.FP32]
    idx_t = pl.Tensor[[ROWS, COLS], pl.INT32]
    out_t = pl.Out[pl.Tensor[[ROWS, 2 * COLS], pl.FP32]]

    @pl.jit
    def sort32_twice(scores: scores_t, positions: idx_t, out: out_t):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sort_rows"):
            pairs = pl.sort32(scores, positions)
            pairs = pl.sort32(scores, positions)
            out[:, :] = pairs
        return out

    @pl.jit
    def sort32(scores: scores_t, positions: idx_t, out: out_t):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sort_rows"):
            out[:, :] = pl.sort32(scores, positions)
        return out

    @pl.jit
    def mrgsort64(scores: scores_t, positions: idx_t, out: out_t):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sort_rows"):
            pairs = pl.sort32(scores, positions)
            out[:, :] = pl.mrgsort(pairs, block_len=64)
        return out

    @pl.jit
    def mrgsort256(scores: scores_t, positions: idx_t, out: out_t):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="sort_rows"):
            pairs = pl.sort32(scores, positions)
            pairs = pl.mrgsort(pairs, block_len=64)
            out[:, :] = pl.mrgsort(pairs, block_len=256)
        return out

    return {"sort32": sort32, "sort32_twice": sort32_twice, "mrgsort64": mrgsort64, "mrgsort256": mrgsort256}


def median_time(fn, rounds):
    for _ in range(5):
        fn()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def child(rounds):
    """Times of this process's ISA, as JSON on stdout."""
    sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python"), str(REPO / "samples")]
    import torch

    import golden  # noqa: F401  (sets the golden's torch threads, as in a real run)
    import pypto.language as pl
    import topk as topk_sample

    torch.manual_seed(0)
    scores = torch.randn(ROWS, COLS)
    positions = torch.arange(COLS, dtype=torch.int32).repeat(ROWS, 1)
    out = torch.zeros(ROWS, 2 * COLS)
    times = {}
    for name, kernel in kernels(pl).items():
        prog = kernel.compile(scores, positions, out)
        times[name] = median_time(lambda: prog(scores, positions, out), rounds)
    vals, idx = torch.zeros(ROWS, 16), torch.zeros(ROWS, 16, dtype=torch.int32)
    prog = topk_sample.topk.compile(scores, vals, idx)
    times["topk"] = median_time(lambda: prog(scores, vals, idx), rounds)
    times["torch.topk"] = median_time(lambda: torch.topk(scores, 16, dim=-1), rounds)
    ref = torch.topk(scores, 16, dim=-1)
    if not (torch.equal(vals, ref.values) and torch.equal(idx.long(), ref.indices)):
        raise SystemExit("topk: the simulator's result differs from torch.topk")
    print(json.dumps(times))


def run_child(isa, rounds, tmp):
    env = dict(os.environ, PYPTO_SIM_SORT_ISA=isa, PYPTO_SIM_THREADS="1", PYPTO_PROG_BUILD_DIR=tmp)
    out = subprocess.run([PYTHON, __file__, "--child", "--rounds", str(rounds)], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="timed rounds per kernel")
    parser.add_argument("--repeats", type=int, default=3, help="alternations of the processes")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.rounds)
    isas = ("scalar", "avx2", "auto")
    best = {isa: {} for isa in isas}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            for isa in isas:
                for name, t in run_child(isa, args.rounds, tmp).items():
                    best[isa][name] = min(t, best[isa].get(name, t))
    print(f"machine: {os.cpu_count()} cores, {os.uname().machine}; single-threaded simulator; "
          f"rounds {args.rounds} x {args.repeats}; [{ROWS}, {COLS}] fp32 scores")
    print(f"{'':12s} {'scalar':>10s} {'avx2':>10s} {'auto':>10s} {'scalar/avx2':>12s} {'scalar/auto':>12s}")

    def row(label, t):
        s, v, a = (t[isa] for isa in isas)
        print(f"{label:12s} {s * 1e6:8.0f}us {v * 1e6:8.0f}us {a * 1e6:8.0f}us {s / v:11.2f}x {s / a:11.2f}x")

    op = {isa: {"sort32": t["sort32_twice"] - t["sort32"], "mrgsort64": t["mrgsort64"] - t["sort32"],
                "mrgsort256": t["mrgsort256"] - t["mrgsort64"]} for isa, t in best.items()}
    for name in ("sort32", "mrgsort64", "mrgsort256"):
        row(name, {isa: op[isa][name] for isa in isas})
    row("all three", {isa: sum(op[isa].values()) for isa in isas})
    row("topk sample", {isa: best[isa]["topk"] for isa in isas})
    for isa, t in best.items():
        print(f"topk sample / torch.topk ({isa}): {t['topk'] / t['torch.topk']:.2f} (target <= 2.00; "
              f"torch.topk {t['torch.topk'] * 1e6:.0f} us)")


if __name__ == "__main__":
    main()
