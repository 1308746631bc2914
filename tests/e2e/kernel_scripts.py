"""Kernel scripts for end-to-end tests, written to a temporary directory and run for real."""

import textwrap

# A small tiled scalar add; the run block at the bottom is replaced per test.
KERNEL = '''
import torch
import pypto.language as pl
from golden import ScalarSpec, TensorSpec, run

ROWS, COLS = 64, 32


@pl.jit
def add_kernel(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    a: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, ROW_STEP):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add"):
            y[r : r + 16, :] = pl.add(x[r : r + 16, :], a)
    return y


def specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        ScalarSpec("a", torch.float32, 2.0),
        TensorSpec("y", [ROWS, COLS], torch.float32),
    ]


def golden(values):
    values["y"][:] = values["x"] + values["a"]


def finish(result):
    print(result)
    if not result.passed:
        raise SystemExit(1)
'''

DEFAULT_MAIN = """
finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, config={"platform": "a2a3sim"}))
"""


def write_kernel_script(directory, main=DEFAULT_MAIN, row_step=16, name="kernel.py", prelude=""):
    """Writes the test kernel with `main` as its last lines; returns the path."""
    path = directory / name
    body = KERNEL.replace("ROW_STEP", str(row_step))
    path.write_text(textwrap.dedent(prelude) + body + textwrap.dedent(main))
    return path


def line_of(path, text):
    """1-based line number of the first line containing `text`."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")
