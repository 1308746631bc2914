"""The harness's memory against the bytes of a run's tensors. Prints the figures; never
asserts.

    .venv/bin/python tests/bench/bench_memory.py [--mib N]

One kernel with every direction (two large In tensors, an Out and an InOut, N MiB each,
default 128): `y = x + w`, `acc = acc + x`, tiled, run by `pypto-golden -p a2a3sim` as a
user runs it. Two runs, as tests/bench/bench_corpus.py measures the corpus:
- the normal run, its peak RSS from wait4;
- the same run with PYPTO_GOLDEN_MEMORY_LIMIT=1, refused before any tensor exists: its peak
  is what the run holds without its tensors (interpreter, torch, the compiled kernel).
The harness's memory is the difference. The floor is one copy of each input (the golden
and the device share the host's bytes until one writes) and two of each output (the
kernel's result and the golden's): 4 N for this kernel, against 12 N when every tensor was
held as host data, golden clone and device copy. Device memory is what the harness holds
beyond the inputs' one copy and the golden's outputs; target <= 1.2x the bytes the kernel
writes (y and acc).
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "corpus"))
import run_corpus  # noqa: E402

KERNEL = '''
import torch
import pypto.language as pl
from golden import TensorSpec, exit_on_failure, run

ROWS, COLS = {rows}, 8192
RT, CT = 256, 512


@pl.jit
def every_direction(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    w: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, RT):
        for c in pl.range(0, COLS, CT):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
                tx = x[r : r + RT, c : c + CT]
                y[r : r + RT, c : c + CT] = pl.add(tx, w[r : r + RT, c : c + CT])
                acc[r : r + RT, c : c + CT] = pl.add(acc[r : r + RT, c : c + CT], tx)
    return y, acc


def golden(values):
    values["y"][:] = values["x"] + values["w"]
    values["acc"] += values["x"]


if __name__ == "__main__":
    specs = [TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
             TensorSpec("w", [ROWS, COLS], torch.float32, init_value=torch.randn),
             TensorSpec("y", [ROWS, COLS], torch.float32),
             TensorSpec("acc", [ROWS, COLS], torch.float32, init_value=torch.randn)]
    exit_on_failure(run(fn=every_direction, specs=specs, golden_fn=golden, config={{"platform": "a2a3sim"}}))
'''


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=128, help="MiB per tensor (a multiple of 8)")
    ap.add_argument("--bin", default=str(REPO / "build" / "bin" / "pypto-golden"))
    args = ap.parse_args(argv)
    rows = args.mib * (1 << 20) // (8192 * 4)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "every_direction.py").write_text(KERNEL.format(rows=rows))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYPTO_")}
        env["PYPTO_PROG_BUILD_DIR"] = str(work / "build_output")
        cmd = [args.bin, "every_direction.py", "-p", "a2a3sim"]
        code, _, peak, _, output = run_corpus.launch(cmd, work, env, 600)
        if code != 0:
            raise SystemExit("the run failed:\n" + output)
        _, _, base, _, _ = run_corpus.launch(cmd, work, dict(env, PYPTO_GOLDEN_MEMORY_LIMIT="1"), 600)
    n = args.mib
    harness = peak - base
    device = harness - 2 * n - 2 * n  # beyond the two inputs and the golden's two outputs
    print(f"tensors: 2 In, 1 Out, 1 InOut of {n} MiB each ({4 * n} MiB); peak {peak:.0f} MiB, "
          f"without tensors {base:.0f} MiB")
    print(f"harness memory {harness:.0f} MiB = {harness / (4 * n):.2f}x the tensors' bytes "
          f"(floor 1.50x: inputs once, outputs twice; 3.00x with a host, golden and device copy of each)")
    print(f"device memory beyond the inputs and the golden's outputs: {device:.0f} MiB = {device / (2 * n):.2f}x the "
          f"{2 * n} MiB the kernel writes (target <= 1.2)")


if __name__ == "__main__":
    main()
