"""ring_allreduce: an L3 program, four ranks summing their rows around a ring.

The host program (@pl.jit.host) allocates two window buffers, one slot per step for the
values in flight and one signal per step, and launches the chip program on every rank
(`ring_step(..., device=r)`). Each rank starts from its own row; at every step it passes
on the row it holds to the next rank's slot (pld.remote_store), signals it
(pld.system.notify), waits for its own slot from the previous rank (pld.system.wait) and
adds what arrived. After WORLD - 1 steps every rank holds the sum of all rows, and clears
its own signals so the next launch starts from zero (window buffers persist between the
launches of a benchmark, as on hardware).

Run on the simulator (ranks on devices d .. d+3):
    pypto-golden samples/ring_allreduce.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

WORLD = 4
COLS = 512
STEPS = WORLD - 1


@pl.jit.incore
def ring_step(
    row: pl.Tensor[[1, COLS], pl.FP32],
    total: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    inbox: pld.DistributedTensor[[STEPS, COLS], pl.FP32],
    arrived: pld.DistributedTensor[[STEPS, 1], pl.INT32],
    rank: pl.Scalar[pl.INT32],
):
    nxt = (rank + 1) % WORLD
    held = pl.load(row, [0, 0], [1, COLS])
    acc = held
    for step in pl.range(STEPS):
        pld.tile.remote_store(held, inbox, nxt, [step, 0])
        pld.system.notify(arrived, peer=nxt, offsets=[step, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(arrived, offsets=[step, 0], expected=1, cmp=pld.WaitCmp.Ge)
        held = pl.load(inbox, [step, 0], [1, COLS])
        acc = pl.add(acc, held)
    # Windows persist across launches (PYPTO_BENCH): clear this rank's signals for the next
    # launch. Safe here, since the previous rank notifies each of them once per launch.
    for step in pl.range(STEPS):
        pld.system.notify(arrived, peer=rank, offsets=[step, 0], value=0, op=pld.NotifyOp.Set)
    return pl.store(acc, [0, 0], total)


@pl.jit
def ring_chip(
    row: pl.Tensor[[1, COLS], pl.FP32],
    total: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    inbox: pld.DistributedTensor[[STEPS, COLS], pl.FP32],
    arrived: pld.DistributedTensor[[STEPS, 1], pl.INT32],
    rank: pl.Scalar[pl.INT32],
):
    return ring_step(row, total, inbox, arrived, rank)


@pl.jit.host
def ring_allreduce(
    rows: pl.Tensor[[WORLD, 1, COLS], pl.FP32],
    totals: pl.Out[pl.Tensor[[WORLD, 1, COLS], pl.FP32]],
):
    inbox_buf = pld.alloc_window_buffer([STEPS, COLS], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer(STEPS * 4)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [STEPS, COLS], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [STEPS, 1], dtype=pl.INT32)
        ring_chip(rows[r], totals[r], inbox, arrived, r, device=r)


def build_specs():
    return [
        TensorSpec("rows", [WORLD, 1, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("totals", [WORLD, 1, COLS], torch.float32),
    ]


def golden_ring_allreduce(values):
    values["totals"][:] = values["rows"].sum(dim=0, keepdim=True).expand(WORLD, 1, COLS)


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    devices = list(range(args.device, args.device + WORLD))
    result = run(
        fn=ring_allreduce,
        specs=build_specs(),
        golden_fn=golden_ring_allreduce,
        config=RunConfig(platform=args.platform, distributed_config=DistributedConfig(device_ids=devices)),
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
