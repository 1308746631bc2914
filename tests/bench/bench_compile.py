"""Compile time and IR size against loop trip counts: the same kernel with loops of 10 and
of 10**6 iterations. Loops stay loops in the IR, so both numbers should be ~1x. Prints
ratios measured in the same run; never asserts (tests/python/test_frontend_constructs.py
asserts the IR sizes).

    PYTHONPATH=pylib .venv/bin/python tests/bench/bench_compile.py [--repeat N]
"""

import argparse
import importlib.util
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "pylib"))

KERNEL = '''
import pypto.language as pl

TRIPS = {trips}
COLS = 64


@pl.jit.inline
def scale_rows(src, dst, r, s):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_rows"):
        dst[r : r + 1, :] = pl.add(src[r : r + 1, :], s)


@pl.jit
def bench_kernel(x: pl.Tensor[[TRIPS, COLS], pl.FP32], a: pl.Scalar[pl.FP32],
                 y: pl.Out[pl.Tensor[[TRIPS, COLS], pl.FP32]]):
    for r, (acc,) in pl.range(TRIPS, init_values=(0,)):
        if r % 2 == 0:
            scale_rows(x, y, r, a)
        else:
            for c in pl.unroll(COLS // 16):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="odd"):
                    y[r : r + 1, c * 16 : c * 16 + 16] = pl.add(x[r : r + 1, c * 16 : c * 16 + 16], 1.0)
        acc_out = pl.yield_(acc + r)
    for b in pl.spmd(TRIPS // 2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="blk"):
            y[b : b + 1, :] = pl.add(y[b : b + 1, :], 0.5)
    return y
'''


def ir_nodes(obj):
    if isinstance(obj, dict):
        return int("s" in obj or "e" in obj or "k" in obj) + sum(ir_nodes(v) for v in obj.values())
    if isinstance(obj, list):
        return sum(ir_nodes(v) for v in obj)
    return 0


def compile_once(directory, trips, n):
    """Import a fresh copy of the kernel (no JIT cache) and compile it in signature mode."""
    path = pathlib.Path(directory) / ("kernel_%d_%d.py" % (trips, n))
    path.write_text(KERNEL.format(trips=trips))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    t0 = time.perf_counter()
    prog = module.bench_kernel.compile(a=1.0)
    return time.perf_counter() - t0, prog.program


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYPTO_PROG_BUILD_DIR"] = os.path.join(tmp, "builds")
        import pypto.language  # noqa: F401  (import cost stays out of the timings)
        compile_once(tmp, 10, -1)  # warm up the frontend's own imports
        results = {}
        for trips in (10, 10 ** 6):
            times, program = [], None
            for n in range(args.repeat):
                dt, program = compile_once(tmp, trips, n)
                times.append(dt)
            results[trips] = (statistics.median(times), ir_nodes(program),
                              len(json.dumps(program)))
    (t10, n10, b10), (t1m, n1m, b1m) = results[10], results[10 ** 6]
    print("compile, 10 trips:    %8.2f ms  (median of %d)" % (t10 * 1e3, args.repeat))
    print("compile, 10**6 trips: %8.2f ms" % (t1m * 1e3))
    print("compile time ratio 10**6 / 10 trips: %.2f" % (t1m / t10))
    print("IR size, 10 trips:    %d nodes, %d bytes" % (n10, b10))
    print("IR size, 10**6 trips: %d nodes, %d bytes" % (n1m, b1m))
    print("IR node ratio 10**6 / 10 trips: %.2f" % (n1m / n10))


if __name__ == "__main__":
    main()
