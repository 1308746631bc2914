"""Simulator dispatch vs eager torch golden, per sample. Prints each ratio and the geometric
mean; never asserts on time.

    .venv/bin/python tests/bench/bench_samples.py [--rounds N] [SAMPLE ...]

For every passing sample (samples/<name>.py: its @pl.jit kernel or @pl.program class,
`build_specs()` and its `golden_*(values)` function), in one process like
tests/bench/bench_host.py's dispatch(): median time of one simulator dispatch of the compiled kernel
(upload, run, download) over the median time of its golden on the same inputs, at the sample's own size, each
side timed in blocks of back-to-back calls (interleaved_medians). Targets: each
ratio <= 2.0 (matmul-dominated <= 1.5), geometric mean <= 1.2.

The golden runs with the thread count a real run gives it (PYPTO_GOLDEN_NUM_THREADS,
default 16, set by importing golden); set that variable to compare against another
configuration, e.g. one thread per core.
"""

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))

SAMPLES_DIR = REPO / "samples"
# Matmul-dominated samples have the tighter target.
MATMUL_TARGET = 1.5
MATMUL_SAMPLES = {"matmul", "gemm", "gemm_residual_bf16", "multi_proj"}
DEFAULT_TARGET = 2.0
# Calls of each side per round (see interleaved_medians).
BLOCK = 4
# Samples that need torch >= 2.1.
NEEDS_FP8 = {"fp8_matmul"}


def sample_names():
    """Every single-device sample that is expected to pass (a *_broken.py sample fails on
    purpose; the L3 samples, with a @pl.jit.host program, are tests/bench/bench_l3.py's)."""
    return sorted(p.stem for p in SAMPLES_DIR.glob("*.py")
                  if not p.stem.endswith("_broken") and "@pl.jit.host" not in p.read_text())


def kernel_and_golden(mod):
    """The sample's kernel (its one entry @pl.jit function or @pl.program class; inline
    helpers are not entries) and its golden (its one golden_* function)."""
    from pypto.jit.function import JITFunction
    from pypto.jit.program import Program

    kernels = [v for v in vars(mod).values()
               if isinstance(v, (JITFunction, Program)) and v.__module__ == mod.__name__
               and getattr(v, "_pypto_callee", lambda: None)() is None]  # not a spliced helper
    goldens = [v for k, v in vars(mod).items() if k.startswith("golden_") and callable(v)]
    if len(kernels) != 1 or len(goldens) != 1:
        raise SystemExit(f"{mod.__file__}: expected one kernel and one golden_* function, found "
                         f"{len(kernels)} and {len(goldens)}")
    return kernels[0], goldens[0]


def make_value(spec, torch):
    init = getattr(spec, "init_value", None)
    if not hasattr(spec, "shape"):  # ScalarSpec
        v = spec.value
        return v.item() if isinstance(v, torch.Tensor) else v
    if init is None:
        return torch.zeros(spec.shape, dtype=spec.dtype)
    if init in (torch.randn, torch.rand, torch.zeros, torch.ones):
        # As the harness does: torch has no FP8 random kernels, so draw in FP32 and round.
        if spec.dtype.is_floating_point and torch.finfo(spec.dtype).bits == 8:
            return init(spec.shape).to(spec.dtype)
        return init(spec.shape, dtype=spec.dtype)
    if isinstance(init, torch.Tensor):
        return init.clone().to(spec.dtype)
    if callable(init):
        return torch.as_tensor(init()).to(spec.dtype).reshape(spec.shape).clone()
    return torch.full(spec.shape, init, dtype=spec.dtype)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved_medians(a, b, rounds, between=None, block=BLOCK):
    """Median times of one call of a() and of b(), over `rounds` rounds of `block` calls of
    a() back to back, then `block` of b(), then between() (untimed). Rounds alternate so load
    drift (other processes on a shared machine) hits both alike; calls within a block run
    back to back, as a benchmark run dispatches. The first call of each block is not
    counted: it pays for the switch."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.extend([timed(a) for _ in range(block)][1:])
        tb.extend([timed(b) for _ in range(block)][1:])
        if between is not None:
            between()
    return statistics.median(ta), statistics.median(tb)


def bench(name, rounds, torch):
    mod = __import__(name)
    kernel, golden_fn = kernel_and_golden(mod)
    torch.manual_seed(0)
    specs = mod.build_specs()
    args = [make_value(s, torch) for s in specs]
    values = {s.name: (a.clone() if isinstance(a, torch.Tensor) else a) for s, a in zip(specs, args)}
    prog = kernel.compile(*args)

    def dispatch():
        prog(*args)

    def golden():
        golden_fn(values)

    # A run releases the golden's OpenMP team before its first dispatch (with no more threads
    # than cores, its threads would spin on beside the device's workers); so does the switch
    # from the golden's block to the simulator's here.
    import _pypto_golden

    for _ in range(5):  # warm up both (page cache, allocator pools, BLAS buffers)
        dispatch()
        golden()
        _pypto_golden.release_idle_omp_team()
    return interleaved_medians(dispatch, golden, rounds, between=_pypto_golden.release_idle_omp_team)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="timed rounds per side")
    parser.add_argument("samples", nargs="*", help="sample names (default: all)")
    args = parser.parse_args()
    sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python"), str(REPO / "samples")]
    import torch

    import golden  # noqa: F401  (sets the golden's torch threads, as in a real run)

    names = args.samples or sample_names()
    print(f"machine: {os.cpu_count()} cores, {os.uname().machine}; torch threads {torch.get_num_threads()}; "
          f"rounds {args.rounds}")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYPTO_PROG_BUILD_DIR"] = tmp
        for name in names:
            if name in NEEDS_FP8 and not hasattr(torch, "float8_e4m3fn"):
                print(f"{name:20s} skipped: torch {torch.__version__} has no FP8 dtypes", flush=True)
                continue
            sim, ref = bench(name, args.rounds, torch)
            ratio = sim / ref
            ratios.append(ratio)
            target = MATMUL_TARGET if name in MATMUL_SAMPLES else DEFAULT_TARGET
            print(f"{name:20s} simulator {sim * 1e6:9.0f} us  golden {ref * 1e6:9.0f} us  "
                  f"ratio {ratio:5.2f} (target <= {target:.2f})", flush=True)
    gmean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of {len(ratios)} ratios: {gmean:.2f} (target <= 1.20)")


if __name__ == "__main__":
    main()
