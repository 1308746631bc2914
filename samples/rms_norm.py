"""rms_norm: y = x / sqrt(mean(x^2) + eps) * gamma, the sum of squares accumulated over
column blocks.

Run on the simulator:
    pypto-golden samples/rms_norm.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, HIDDEN = 1024, 1024
ROW_TILE, HIDDEN_TILE = 64, 256
EPS = 1e-6


@pl.jit
def rms_norm(
    x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
    gamma: pl.Tensor[[1, HIDDEN], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rms_norm_rows"):
            # Pass 1: the sum of squares of each row, one column block at a time.
            sq_sum = pl.full([ROW_TILE, 1], dtype=pl.FP32, value=0.0)
            for h in pl.range(0, HIDDEN, HIDDEN_TILE):
                xt = x[r : r + ROW_TILE, h : h + HIDDEN_TILE]
                sq_sum = pl.add(sq_sum, pl.row_sum(pl.mul(xt, xt)))
            inv_rms = pl.rsqrt(pl.add(pl.mul(sq_sum, 1.0 / HIDDEN), EPS))  # [ROW_TILE, 1]
            # Pass 2: scale each block by its row's 1/rms and by gamma.
            for h in pl.range(0, HIDDEN, HIDDEN_TILE):
                xt = x[r : r + ROW_TILE, h : h + HIDDEN_TILE]
                scaled = pl.row_expand_mul(xt, inv_rms)
                y[r : r + ROW_TILE, h : h + HIDDEN_TILE] = pl.col_expand_mul(scaled, gamma[:, h : h + HIDDEN_TILE])
    return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, HIDDEN], torch.float32, init_value=torch.randn),
        TensorSpec("gamma", [1, HIDDEN], torch.float32, init_value=torch.randn),
        TensorSpec("y", [ROWS, HIDDEN], torch.float32),
    ]


def golden_rms_norm(values):
    x = values["x"]
    values["y"][:] = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * values["gamma"]


def main(golden_fn=golden_rms_norm):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=rms_norm,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
