"""kv_cache_append: one decode step per launch on two ranks, each appending a row to its own
KV-cache shard at a position that advances with every benchmark dispatch.

Each rank writes its new key row k_new[r] into cache[r] at row `pos`, then reads rows
0..pos back and sums them into out[r]. The cache is a resident InOut
(TensorSpec(resident="stacked")): it stays on the cards and keeps what every launch
appended. `pos` is a stepped scalar (ScalarSpec(benchmark_step=1, compile_runtime=True)):
with PYPTO_BENCH=1, physical dispatch i (the validation dispatch is 0, warmups included)
gets pos + i, so each benchmark round appends one row further instead of rewriting row
POS. Validation checks the first dispatch. CAPACITY bounds the rounds: POS + warmup +
rounds must stay below it.

Run on the simulator (ranks on devices d and d+1):
    PYPTO_BENCH=1 PYPTO_BENCH_ROUNDS=20 pypto-golden samples/kv_cache_append.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from golden import ScalarSpec, TensorSpec, exit_on_failure, parse_kernel_args, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

WORLD = 2
CAPACITY, HEAD = 160, 64
POS = 16  # the position the validation dispatch appends at


@pl.jit.incore
def append_and_sum(
    k_new: pl.Tensor[[1, HEAD], pl.FP32],
    cache: pl.InOut[pl.Tensor[[CAPACITY, HEAD], pl.FP32]],
    out: pl.Out[pl.Tensor[[1, HEAD], pl.FP32]],
    pos: pl.Scalar[pl.INT32],
):
    row = pl.load(k_new, [0, 0], [1, HEAD])
    cache = pl.store(row, [pos, 0], cache)
    acc = row
    for i in pl.range(pos):
        acc = pl.add(acc, pl.load(cache, [i, 0], [1, HEAD]))
    return pl.store(acc, [0, 0], out)


@pl.jit
def decode_chip(
    k_new: pl.Tensor[[1, HEAD], pl.FP32],
    cache: pl.InOut[pl.Tensor[[CAPACITY, HEAD], pl.FP32]],
    out: pl.Out[pl.Tensor[[1, HEAD], pl.FP32]],
    pos: pl.Scalar[pl.INT32],
):
    return append_and_sum(k_new, cache, out, pos)


@pl.jit.host
def kv_cache_append(
    k_new: pl.Tensor[[WORLD, 1, HEAD], pl.FP32],
    cache: pl.InOut[pl.Tensor[[WORLD, CAPACITY, HEAD], pl.FP32]],
    out: pl.Out[pl.Tensor[[WORLD, 1, HEAD], pl.FP32]],
    pos: pl.Scalar[pl.INT32],
):
    for r in pl.range(pld.world_size()):
        decode_chip(k_new[r], cache[r], out[r], pos, device=r)


def build_specs():
    return [
        TensorSpec("k_new", [WORLD, 1, HEAD], torch.float32, init_value=torch.randn),
        TensorSpec("cache", [WORLD, CAPACITY, HEAD], torch.float32, init_value=torch.randn, resident="stacked"),
        TensorSpec("out", [WORLD, 1, HEAD], torch.float32),
        ScalarSpec("pos", torch.int32, POS, compile_runtime=True, benchmark_step=1),
    ]


def golden_kv_cache_append(values):
    pos = values["pos"]
    values["cache"][:, pos] = values["k_new"][:, 0]
    values["out"][:] = values["cache"][:, : pos + 1].sum(dim=1, keepdim=True)


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    devices = list(range(args.device, args.device + WORLD))
    result = run(
        fn=kv_cache_append,
        specs=build_specs(),
        golden_fn=golden_kv_cache_append,
        config=RunConfig(platform=args.platform, distributed_config=DistributedConfig(device_ids=devices)),
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
