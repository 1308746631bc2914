"""ratio_gate: a padded output whose kernel fills only the active rows, gated by ratio_allclose.

The kernel computes y = (x + a) + b on the first ACTIVE rows of a [512, 256] buffer and never
writes the rest (an inactive tail, as in a packed token buffer). The golden sums x + (a + b):
rounded differently, a few dozen points (~0.06%) land outside the tight 1e-7 tolerances.
ratio_allclose with valid_rows=ACTIVE compares only the active prefix and allows up to
max_error_ratio (0.5%) of its points outside atol + rtol * |golden|; the default allclose
would fail on both counts.

Run on the simulator:
    pypto-golden samples/ratio_gate.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import ScalarSpec, TensorSpec, exit_on_failure, parse_kernel_args, run
from golden.validation import ratio_allclose

ROWS, COLS = 512, 256
ACTIVE = 384
ROW_TILE, COL_TILE = 64, 128


@pl.jit
def bias_active_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    b: pl.Tensor[[ROWS, COLS], pl.FP32],
    a: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    # Only the active row blocks are tasks; rows ACTIVE..ROWS of y are never written.
    for r in pl.parallel(0, ACTIVE, ROW_TILE):
        for c in pl.range(0, COLS, COL_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="bias"):
                shifted = pl.add(x[r : r + ROW_TILE, c : c + COL_TILE], a)
                y[r : r + ROW_TILE, c : c + COL_TILE] = pl.add(shifted, b[r : r + ROW_TILE, c : c + COL_TILE])
    return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("b", [ROWS, COLS], torch.float32, init_value=torch.randn),
        ScalarSpec("a", torch.float32, 0.25),
        TensorSpec("y", [ROWS, COLS], torch.float32),
    ]


def golden_bias_active_rows(values):
    # The same sum in another order: (a + b) first. The tail stays zeros: nothing is defined there.
    values["y"][:ACTIVE] = values["x"][:ACTIVE] + (values["a"] + values["b"][:ACTIVE])



def main(golden_fn=golden_bias_active_rows):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=bias_active_rows,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-7,
        atol=1e-7,
        compare_fn={"y": ratio_allclose(max_error_ratio=0.005, valid_rows=ACTIVE)},
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
