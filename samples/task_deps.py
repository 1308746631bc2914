"""task_deps: manual dependencies. Phase 1 scales tile g of y from the input tile order[g]
(the offsets sit in an INT32 pl.array); a pl.system.task_dummy barrier waits for every
phase-1 task (their ids kept in a TASK_ID pl.array); phase 2 is a running sum over the
tiles, z[g] = z[g - 1] + y[g], where each step's task declares deps= on the previous one.
That chain runs inside a pl.parallel loop: the iterations are linked through the TASK_ID
array, so the simulator runs them in order and the sum is right for any thread count or
PYPTO_SIM_SHUFFLE.

Run on the simulator:
    pypto-golden samples/task_deps.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

G, TILE, COLS = 8, 16, 64
ROWS = G * TILE


@pl.jit.inline
def prefix_step(prev: pl.Scalar[pl.TASK_ID], g, y, z, chain: pl.Array[G, pl.TASK_ID]):
    """z[g] = z[g - 1] + y[g], after the task that wrote z[g - 1]."""
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="prefix", deps=[prev]) as tid:
        z[g * TILE : (g + 1) * TILE, :] = pl.add(z[(g - 1) * TILE : g * TILE, :],
                                                 y[g * TILE : (g + 1) * TILE, :])
    chain[g] = tid


@pl.jit
def task_deps(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    order: pl.Tensor[[G], pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    src_row = pl.array.create(G, pl.INT32)
    for g in pl.range(G):
        src_row[g] = pl.read(order, [g]) * TILE
    scaled = pl.array.create(G, pl.TASK_ID)
    chain = pl.array.create(G, pl.TASK_ID)
    with pl.manual_scope():
        for g in pl.parallel(G):
            r = src_row[g]
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale") as tid:
                y[g * TILE : (g + 1) * TILE, :] = pl.mul(x[r : r + TILE, :], 2.0)
            scaled[g] = tid
        ready = pl.system.task_dummy(deps=[scaled[g] for g in range(G)])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first", deps=[ready]) as first:
            z[0:TILE, :] = pl.add(y[0:TILE, :], 0.0)
        chain[0] = first
        for g in pl.parallel(1, G):
            prefix_step(chain[g - 1], g, y, z, chain)
    return y, z


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("order", [G], torch.int32, init_value=torch.randperm(G).to(torch.int32)),
        TensorSpec("y", [ROWS, COLS], torch.float32),
        TensorSpec("z", [ROWS, COLS], torch.float32),
    ]


def golden_task_deps(values):
    x, order = values["x"].view(G, TILE, COLS), values["order"].long()
    y = 2.0 * x[order]
    values["y"][:] = y.reshape(ROWS, COLS)
    values["z"][:] = torch.cumsum(y, dim=0).reshape(ROWS, COLS)


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=task_deps,
        specs=build_specs(),
        golden_fn=golden_task_deps,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
