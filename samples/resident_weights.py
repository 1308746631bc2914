"""resident_weights: a column-parallel linear layer on two ranks whose weight shards stay on
their cards.

y[r] = x @ w[r]: every rank multiplies the same activations by its own [K, N / WORLD]
column block of the weight. The weight is a TensorSpec(resident="stacked"): shard r is
uploaded to card r once and reused by every launch of the host program (the validation
dispatch and, with PYPTO_BENCH=1, every benchmark round), while the activations and the
outputs travel host <-> device each launch.

Run on the simulator (ranks on devices d and d+1; add PYPTO_BENCH=1 for the L3 benchmark):
    pypto-golden samples/resident_weights.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

WORLD = 2
M, K, N = 32, 128, 128
N_SHARD = N // WORLD


@pl.jit.incore
def shard_matmul(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N_SHARD], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N_SHARD], pl.FP32]],
):
    a = pl.load(x, [0, 0], [M, K], target_memory=pl.MemorySpace.Mat)
    b = pl.load(w, [0, 0], [K, N_SHARD], target_memory=pl.MemorySpace.Mat)
    acc = pl.matmul(pl.move(a, target_memory=pl.MemorySpace.Left),
                    pl.move(b, target_memory=pl.MemorySpace.Right), out_dtype=pl.FP32)
    return pl.store(acc, [0, 0], y)


@pl.jit
def shard_chip(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N_SHARD], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N_SHARD], pl.FP32]],
):
    return shard_matmul(x, w, y)


@pl.jit.host
def resident_weights(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[WORLD, K, N_SHARD], pl.BF16],
    y: pl.Out[pl.Tensor[[WORLD, M, N_SHARD], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        shard_chip(x, w[r], y[r], device=r)


def build_specs():
    return [
        TensorSpec("x", [M, K], torch.bfloat16, init_value=torch.randn),
        TensorSpec("w", [WORLD, K, N_SHARD], torch.bfloat16, init_value=torch.randn, resident="stacked"),
        TensorSpec("y", [WORLD, M, N_SHARD], torch.float32),
    ]


def golden_resident_weights(values):
    x = values["x"].float()
    for r in range(WORLD):
        values["y"][r] = x @ values["w"][r].float()


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    devices = list(range(args.device, args.device + WORLD))
    result = run(
        fn=resident_weights,
        specs=build_specs(),
        golden_fn=golden_resident_weights,
        config=RunConfig(platform=args.platform, distributed_config=DistributedConfig(device_ids=devices)),
        rtol=1e-3,
        atol=1e-3,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
