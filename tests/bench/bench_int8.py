"""INT8 matmuls: oneDNN's integer gemm against the FP32 chunks it replaces, in one run.
Prints the ratio; never asserts on time.

    .venv/bin/python tests/bench/bench_int8.py [--rounds N]

A W8A8 projection as the corpus's models write it ([128, 4096] int8 activations by a
[4096, 2048] int8 weight, b_trans, INT32 accumulator, K in tiles of 512 through
pl.matmul_acc), dispatched back to back in a child process per mode: the default, and
ONEDNN_MAX_CPU_ISA=AVX2, which keeps the integer gemm out (int8_gemm.h) so the product runs
as FP32 gemms. Both give the same integers. On a CPU without AVX-512 VNNI both modes are
the FP32 path and the ratio is ~1.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))

CHILD = '''
import os
import statistics
import sys
import tempfile
import time

import torch
import pypto.language as pl

M, K, N, KT, NT = 128, 4096, 2048, 512, 256


@pl.jit
def w8a8(x: pl.Tensor[[M, K], pl.INT8], w: pl.Tensor[[N, K], pl.INT8], y: pl.Out[pl.Tensor[[M, N], pl.INT32]]):
    for n0 in pl.parallel(0, N, NT):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.matmul(x[:, 0:KT], w[n0 : n0 + NT, 0:KT], b_trans=True, out_dtype=pl.INT32)
            for k0 in pl.range(KT, K, KT):
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + KT], w[n0 : n0 + NT, k0 : k0 + KT], b_trans=True)
            y[:, n0 : n0 + NT] = acc
    return y


os.environ["PYPTO_PROG_BUILD_DIR"] = tempfile.mkdtemp()
gen = torch.Generator().manual_seed(0)
x = torch.randint(-128, 128, (M, K), generator=gen, dtype=torch.int8)
w = torch.randint(-128, 128, (N, K), generator=gen, dtype=torch.int8)
y = torch.empty(M, N, dtype=torch.int32)
prog = w8a8.compile(x, w, y)
prog(x, w, y)
assert torch.equal(y.long(), x.long() @ w.long().t())
times = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter()
    prog(x, w, y)
    times.append(time.perf_counter() - t)
print(statistics.median(times))
'''


def dispatch_s(script, rounds, **env):
    full = {**os.environ, "PYTHONPATH": f"{REPO / 'pylib'}:{BUILD / 'python'}", **env}
    out = subprocess.run([sys.executable, str(script), str(rounds)], env=full, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"the benchmark kernel failed ({env or 'default'}):\n{out.stderr}")
    return float(out.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="dispatches timed per mode")
    args = parser.parse_args()
    fast, slow = [], []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "w8a8.py"  # the kernel's source must be a file
        script.write_text(CHILD)
        for _ in range(3):  # alternating, so load drift hits both
            fast.append(dispatch_s(script, args.rounds))
            slow.append(dispatch_s(script, args.rounds, ONEDNN_MAX_CPU_ISA="AVX2"))
    f, s = statistics.median(fast), statistics.median(slow)
    print(f"w8a8 [128, 4096] x [4096, 2048]: integer gemm {f * 1e3:.1f} ms, FP32 chunks {s * 1e3:.1f} ms a dispatch; "
          f"ratio {f / s:.2f}")


if __name__ == "__main__":
    main()
