"""softmax: y = softmax(x) along each row, one task per block of rows.

Run on the simulator:
    pypto-golden samples/softmax.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, COLS = 1024, 512
ROW_TILE = 64


@pl.jit
def softmax(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="softmax_rows"):
            t = x[r : r + ROW_TILE, :]
            # Subtract each row's maximum before exp so that large inputs do not overflow.
            row_max = pl.row_max(t)
            e = pl.exp(pl.row_expand_sub(t, row_max))
            y[r : r + ROW_TILE, :] = pl.row_expand_div(e, pl.row_sum(e))
    return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=lambda: torch.randn(ROWS, COLS) * 4),
        TensorSpec("y", [ROWS, COLS], torch.float32),
    ]


def golden_softmax(values):
    values["y"][:] = torch.softmax(values["x"], dim=-1)



def main(golden_fn=golden_softmax):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=softmax,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-6,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
