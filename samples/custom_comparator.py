"""custom_comparator: y = (x + b) + b, judged by a Python comparator on the relative L2 error.

The golden computes x + 2 * b: the same sum, rounded differently, so a few elements differ
in their last bits. A comparator is any Python callable with the compare_fn protocol; this
one accepts the output when its relative L2 error is small.

Run on the simulator:
    pypto-golden samples/custom_comparator.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, COLS = 512, 256
ROW_TILE, COL_TILE = 64, 128


@pl.jit
def add_twice(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    b: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    # Row blocks are independent tasks; each adds b twice to two column tiles.
    for r in pl.parallel(0, ROWS, ROW_TILE):
        for c in pl.range(0, COLS, COL_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_twice"):
                bias = b[r : r + ROW_TILE, c : c + COL_TILE]
                once = pl.add(x[r : r + ROW_TILE, c : c + COL_TILE], bias)
                y[r : r + ROW_TILE, c : c + COL_TILE] = pl.add(once, bias)
    return y


def rel_l2_at_most(limit):
    """A comparator: passes when ||actual - expected|| / ||expected|| <= limit."""

    def rel_l2(actual, expected, *, actual_outputs, expected_outputs, inputs, rtol, atol):
        if actual.shape != expected.shape:
            return False, f"    shape mismatch: {tuple(actual.shape)} vs {tuple(expected.shape)}"
        diff = (actual.double() - expected.double()).norm()
        error = (diff / expected.double().norm().clamp_min(1e-300)).item()
        if error <= limit:
            return True, ""
        return False, f"    relative L2 error {error:.3e} > {limit:.3e}"

    rel_l2.__name__ = f"rel_l2_at_most({limit})"  # the label in the run's report
    return rel_l2


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("b", [ROWS, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("y", [ROWS, COLS], torch.float32),
    ]


def golden_add_twice(values):
    values["y"][:] = values["x"] + 2 * values["b"]



def main(golden_fn=golden_add_twice):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=add_twice,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        compare_fn={"y": rel_l2_at_most(1e-6)},
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
