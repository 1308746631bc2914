"""Simulator dispatch vs eager torch golden, per sample. Prints each ratio and the geometric
mean; never asserts on time.

    /usr/bin/python3 tests/bench/bench_samples.py [--rounds N] [SAMPLE ...]

For every sample (samples/<name>.py: its @pl.jit kernel `<name>`, `build_specs()` and
`golden_<name>(values)`), in one process like tests/bench/bench_host.py's dispatch():
median time of one simulator dispatch of the compiled kernel (upload, run, download) over
the median time of its golden on the same inputs, at the sample's own size. Targets: each
ratio <= 2.0 (matmul-dominated <= 1.5), geometric mean <= 1.2.
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

# name -> target ratio
SAMPLES = {
    "matmul": 1.5,
    "softmax": 2.0,
    "layer_norm": 2.0,
    "rms_norm": 2.0,
    "rope": 2.0,
    "gemm_residual_bf16": 1.5,
    "topk": 2.0,
    "valid_region": 2.0,
    "hello_world": 2.0,
    "gemm": 1.5,
    "multi_proj": 1.5,
    "runtime_loop_bound": 2.0,
    "program_kernel": 2.0,
}
# Samples whose kernel / golden are not named <name> / golden_<name>.
NAMES = {"program_kernel": ("ScaledResidual", "golden_scaled_residual")}


def make_value(spec, torch):
    init = getattr(spec, "init_value", None)
    if not hasattr(spec, "shape"):  # ScalarSpec
        v = spec.value
        return v.item() if isinstance(v, torch.Tensor) else v
    if init is None:
        return torch.zeros(spec.shape, dtype=spec.dtype)
    if init in (torch.randn, torch.rand, torch.zeros, torch.ones):
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


def interleaved_medians(a, b, rounds):
    """Median times of a() and b(), alternated round by round so load drift (other
    processes on a shared machine) hits both alike."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(timed(a))
        tb.append(timed(b))
    return statistics.median(ta), statistics.median(tb)


def bench(name, rounds, torch):
    mod = __import__(name)
    kernel_name, golden_name = NAMES.get(name, (name, "golden_" + name))
    kernel = getattr(mod, kernel_name)
    golden_fn = getattr(mod, golden_name)
    torch.manual_seed(0)
    specs = mod.build_specs()
    args = [make_value(s, torch) for s in specs]
    values = {s.name: (a.clone() if isinstance(a, torch.Tensor) else a) for s, a in zip(specs, args)}
    prog = kernel.compile(*args)

    def dispatch():
        prog(*args)

    def golden():
        golden_fn(values)

    for _ in range(5):  # warm up both (page cache, allocator pools, BLAS buffers)
        dispatch()
        golden()
    return interleaved_medians(dispatch, golden, rounds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="timed rounds per side")
    parser.add_argument("samples", nargs="*", help="sample names (default: all)")
    args = parser.parse_args()
    sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python"), str(REPO / "samples")]
    import torch

    import golden  # noqa: F401  (sets the golden's torch threads, as in a real run)

    names = args.samples or list(SAMPLES)
    print(f"machine: {os.cpu_count()} cores, {os.uname().machine}; torch threads {torch.get_num_threads()}; "
          f"rounds {args.rounds}")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYPTO_PROG_BUILD_DIR"] = tmp
        for name in names:
            sim, ref = bench(name, args.rounds, torch)
            ratio = sim / ref
            ratios.append(ratio)
            target = SAMPLES.get(name, 2.0)
            print(f"{name:20s} simulator {sim * 1e6:9.0f} us  golden {ref * 1e6:9.0f} us  "
                  f"ratio {ratio:5.2f} (target <= {target:.2f})", flush=True)
    gmean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of {len(ratios)} ratios: {gmean:.2f} (target <= 1.20)")


if __name__ == "__main__":
    main()
