"""valid_region: row statistics over a partially valid tile. Each row block is read as a
[ROW_TILE, TILE_COLS] tile of which only the first VALID_COLS columns are valid; fillpad
makes the padding neutral for the reductions (min for a max, zero for a sum), and pl.store
writes back only the valid region of the normalised tile.

Run on the simulator:
    pypto-golden samples/valid_region.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, TILE_COLS, VALID_COLS = 1024, 256, 200
ROW_TILE = 64


@pl.jit
def valid_region(
    x: pl.Tensor[[ROWS, TILE_COLS], pl.FP32],
    row_max: pl.Out[pl.Tensor[[ROWS, 1], pl.FP32]],
    row_sum: pl.Out[pl.Tensor[[ROWS, 1], pl.FP32]],
    y: pl.Out[pl.Tensor[[ROWS, VALID_COLS], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="valid_rows"):
            t = pl.slice(x, [ROW_TILE, TILE_COLS], [r, 0], valid_shape=[ROW_TILE, VALID_COLS])
            m = pl.row_max(pl.fillpad(t, pl.PadValue.min))
            s = pl.row_sum(pl.fillpad(t, pl.PadValue.zero))
            row_max[r : r + ROW_TILE, :] = m
            row_sum[r : r + ROW_TILE, :] = s
            # exp(t - max) keeps t's valid region; only that region is stored.
            e = pl.exp(pl.row_expand_sub(t, m))
            pl.store(e, [r, 0], y)
    return row_max, row_sum, y


def build_specs():
    return [
        TensorSpec("x", [ROWS, TILE_COLS], torch.float32, init_value=torch.randn),
        TensorSpec("row_max", [ROWS, 1], torch.float32),
        TensorSpec("row_sum", [ROWS, 1], torch.float32),
        TensorSpec("y", [ROWS, VALID_COLS], torch.float32),
    ]


def golden_valid_region(values):
    v = values["x"][:, :VALID_COLS]
    m = v.max(dim=-1, keepdim=True).values
    values["row_max"][:] = m
    values["row_sum"][:] = v.sum(dim=-1, keepdim=True)
    values["y"][:] = torch.exp(v - m)


def main(golden_fn=golden_valid_region):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=valid_region,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
