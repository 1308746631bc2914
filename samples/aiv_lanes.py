"""aiv_lanes: the two AIV (vector) lanes of a core, and SPMD launches named by task ids.

`pl.spmd_submit` launches `project` on BLOCKS blocks as one task: each block multiplies its
ROWS rows of x by w on the cube, then `for aiv_id in pl.split_aiv(2, mode=UP_DOWN)` runs on
both AIV lanes, each taking its half of the product's rows with pl.aiv_shard, applying a ReLU (pl.maximum with 0)
and storing its rows. The second launch waits for the first through deps= and adds a bias
row by row in a mode=NONE region, where both lanes run the whole body and share the rows by
aiv_id (lane l takes rows l, l + 2, ...).

Run on the simulator:
    pypto-golden samples/aiv_lanes.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

BLOCKS, ROWS, K, COLS = 4, 32, 64, 48
M = BLOCKS * ROWS


@pl.jit.incore
def project(x: pl.Tensor[[M, K], pl.FP32], w: pl.Tensor[[K, COLS], pl.FP32],
            y: pl.Out[pl.Tensor[[M, COLS], pl.FP32]]):
    r0 = pl.get_block_idx() * ROWS
    acc = pl.matmul(x[r0 : r0 + ROWS, :], w)
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        half = pl.aiv_shard(acc)  # this lane's ROWS // 2 rows
        lane_r0 = r0 + aiv_id * (ROWS // 2)
        y[lane_r0 : lane_r0 + ROWS // 2, :] = pl.maximum(half, 0.0)
    return y


@pl.jit.incore
def add_bias(y: pl.InOut[pl.Tensor[[M, COLS], pl.FP32]], bias: pl.Tensor[[M, 1], pl.FP32]):
    r0 = pl.get_block_idx() * ROWS
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
        for r in pl.range(r0 + aiv_id, r0 + ROWS, 2):
            y[r : r + 1, :] = pl.row_expand_add(y[r : r + 1, :], bias[r : r + 1, :])
    return y


@pl.jit
def aiv_lanes(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[K, COLS], pl.FP32],
    bias: pl.Tensor[[M, 1], pl.FP32],
    y: pl.Out[pl.Tensor[[M, COLS], pl.FP32]],
):
    with pl.manual_scope():
        # `self.project`: the module-level @pl.jit.incore function, as in PyPTO's JIT.
        y, projected = pl.spmd_submit(self.project, x, w, y, core_num=BLOCKS)  # noqa: F821
        y, _ = pl.spmd_submit(self.add_bias, y, bias, core_num=BLOCKS, deps=[projected])  # noqa: F821
    return y


def build_specs():
    return [
        TensorSpec("x", [M, K], torch.float32, init_value=torch.randn),
        TensorSpec("w", [K, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("bias", [M, 1], torch.float32, init_value=torch.randn),
        TensorSpec("y", [M, COLS], torch.float32),
    ]


def golden_aiv_lanes(values):
    values["y"][:] = torch.relu(values["x"] @ values["w"]) + values["bias"]


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=aiv_lanes,
        specs=build_specs(),
        golden_fn=golden_aiv_lanes,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
