"""hello_world: y = x + a over a tiled [1024, 512] matrix.

Run on the simulator:
    pypto-golden samples/hello_world.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import ScalarSpec, TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, COLS = 1024, 512
ROW_TILE, COL_TILE = 128, 256


@pl.jit
def hello_world(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    a: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    # Row blocks are independent tasks; each adds the scalar to two column tiles.
    for r in pl.parallel(0, ROWS, ROW_TILE):
        for c in pl.range(0, COLS, COL_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_scalar"):
                tile = x[r : r + ROW_TILE, c : c + COL_TILE]
                y[r : r + ROW_TILE, c : c + COL_TILE] = pl.add(tile, a)
    return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        ScalarSpec("a", torch.float32, 1.5),
        TensorSpec("y", [ROWS, COLS], torch.float32),
    ]


def golden_hello_world(values):
    values["y"][:] = values["x"] + values["a"]



def main(golden_fn=golden_hello_world):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=hello_world,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
