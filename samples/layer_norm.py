"""layer_norm: y = (x - mean) / sqrt(var + eps) * gamma + beta over each row.

Run on the simulator:
    pypto-golden samples/layer_norm.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, HIDDEN = 1024, 512
ROW_TILE = 64
EPS = 1e-5


@pl.jit
def layer_norm(
    x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
    gamma: pl.Tensor[[1, HIDDEN], pl.FP32],
    beta: pl.Tensor[[1, HIDDEN], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer_norm_rows"):
            t = x[r : r + ROW_TILE, :]
            mean = pl.row_sum(pl.mul(t, 1.0 / HIDDEN))  # [ROW_TILE, 1]
            centred = pl.row_expand_sub(t, mean)
            var = pl.row_sum(pl.mul(pl.mul(centred, centred), 1.0 / HIDDEN))
            std = pl.sqrt(pl.add(var, EPS))
            normed = pl.row_expand_div(centred, std)
            y[r : r + ROW_TILE, :] = pl.col_expand_add(pl.col_expand_mul(normed, gamma), beta)
    return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, HIDDEN], torch.float32, init_value=torch.randn),
        TensorSpec("gamma", [1, HIDDEN], torch.float32, init_value=torch.randn),
        TensorSpec("beta", [1, HIDDEN], torch.float32, init_value=torch.randn),
        TensorSpec("y", [ROWS, HIDDEN], torch.float32),
    ]


def golden_layer_norm(values):
    x = values["x"]
    values["y"][:] = torch.nn.functional.layer_norm(x, (HIDDEN,), values["gamma"][0], values["beta"][0], eps=EPS)


def main(golden_fn=golden_layer_norm):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=layer_norm,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
