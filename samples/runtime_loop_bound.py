"""runtime_loop_bound: y[:n_tiles * TILE] = x[:n_tiles * TILE] + 1, where n_tiles is a
runtime scalar (ScalarSpec(..., compile_runtime=True)) used as a pl.range bound: the
artifact is compiled once from the signature and serves any n_tiles.

Run on the simulator:
    pypto-golden samples/runtime_loop_bound.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import ScalarSpec, TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, COLS = 512, 128
ROW_TILE = 32
N_TILES = 11  # the value dispatched; rows beyond N_TILES * ROW_TILE keep their input


@pl.jit
def runtime_loop_bound(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    n_tiles: pl.Scalar[pl.INT64],
    y: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for t in pl.range(n_tiles):
        r = t * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_one"):
            y[r : r + ROW_TILE, :] = pl.add(x[r : r + ROW_TILE, :], 1.0)
    return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        ScalarSpec("n_tiles", torch.int64, N_TILES, compile_runtime=True),
        TensorSpec("y", [ROWS, COLS], torch.float32, init_value=-1.0),
    ]


def golden_runtime_loop_bound(values):
    rows = values["n_tiles"] * ROW_TILE
    values["y"][:rows] = values["x"][:rows] + 1.0



def main(golden_fn=golden_runtime_loop_bound):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=runtime_loop_bound,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
