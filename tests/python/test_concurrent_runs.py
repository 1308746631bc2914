"""golden.run from several Python threads at once: dispatch releases the GIL, so runs meet on
the simulated device. They must take turns there and all pass (this used to deadlock)."""

import os
import subprocess
import sys

# Runs in a child interpreter so a regression shows as a timeout, not a hung test session.
CHILD = r'''
import threading
import torch
import pypto.language as pl
from golden import ScalarSpec, TensorSpec, run

N = 64

@pl.jit
def shift(x: pl.Tensor[[N, N], pl.FP32], a: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    for r in pl.parallel(0, N, 8):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="blk"):
            y[r : r + 8, :] = pl.add(x[r : r + 8, :], a)
    return y

def golden_fn(v):
    v["y"][:] = v["x"] + v["a"]

verdicts = []

def runs(k):
    for _ in range(20):
        specs = [TensorSpec("x", [N, N], torch.float32, init_value=torch.randn),
                 ScalarSpec("a", torch.float32, 0.5 + k), TensorSpec("y", [N, N], torch.float32)]
        verdicts.append(run(fn=shift, specs=specs, golden_fn=golden_fn).passed)

threads = [threading.Thread(target=runs, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("verdicts", len(verdicts), sum(verdicts))
'''


def test_four_threads_times_twenty_runs_finish_and_pass(tmp_path):
    script = tmp_path / "four_threads.py"  # a file: the frontend reads the kernel's source
    script.write_text(CHILD)
    env = dict(os.environ, PYPTO_PROG_BUILD_DIR=str(tmp_path), PYPTO_SIM_THREADS="2")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "verdicts 80 80"
