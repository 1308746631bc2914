"""ragged_tail: a token count that is not a multiple of the tile. The last row tile of
T = 40 tokens in tiles of 16 runs past the end of the tensors; each construct below keeps
its reads and writes inside them:

- pl.slice with a valid_shape: only the valid rows have to exist (the tile may overhang);
- a subscript window past the end (scale[t0 : t0 + 16, :]) is cut at the tensor's end: the
  rows past it are padding, outside the tile's valid region;
- a subscript write of a tile writes its valid rows, so they must lie inside the tensor;
- a batched matmul's [1, 16, N] result is assembled into the 2-D output (its leading unit
  axis is dropped).

Run on the simulator:
    pypto-golden samples/ragged_tail.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

T, K, N = 40, 64, 32
T_TILE = 16


@pl.jit
def ragged_tail(
    x: pl.Tensor[[T, K], pl.FP32],
    w: pl.Tensor[[1, N, K], pl.FP32],
    scale: pl.Tensor[[T, 1], pl.FP32],
    y: pl.Out[pl.Tensor[[T, N], pl.FP32]],
    z: pl.Out[pl.Tensor[[T, K], pl.FP32]],
):
    for t0 in pl.parallel(0, T, T_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
            rows = pl.min(T_TILE, T - t0)
            xt = pl.slice(x, [T_TILE, K], [t0, 0], valid_shape=[rows, K])
            acc = pl.matmul(xt, w, b_trans=True)  # [1, T_TILE, N], valid rows as xt
            y = pl.assemble(y, acc, [t0, 0])
            s = scale[t0 : t0 + T_TILE, :]
            z[t0 : t0 + T_TILE, :] = pl.row_expand_mul(xt, s)
    return y, z


def build_specs():
    return [
        TensorSpec("x", [T, K], torch.float32, init_value=torch.randn),
        TensorSpec("w", [1, N, K], torch.float32, init_value=torch.randn),
        TensorSpec("scale", [T, 1], torch.float32, init_value=torch.rand),
        TensorSpec("y", [T, N], torch.float32),
        TensorSpec("z", [T, K], torch.float32),
    ]


def golden_ragged_tail(values):
    values["y"][:] = values["x"] @ values["w"][0].T
    values["z"][:] = values["x"] * values["scale"]


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=ragged_tail,
        specs=build_specs(),
        golden_fn=golden_ragged_tail,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
