"""gemm: c = a @ b, K-blocked, the accumulator carried through the K loop by if/else.

Run on the simulator:
    pypto-golden samples/gemm.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

M, N, K = 256, 128, 512
TILE_M, TILE_N, TILE_K = 64, 64, 128


@pl.jit
def gemm(
    a: pl.Tensor[[M, K], pl.BF16],
    b: pl.Tensor[[K, N], pl.BF16],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    # One task per output tile; inside it, K is consumed block by block.
    for m in pl.parallel(0, M, TILE_M):
        for n in pl.parallel(0, N, TILE_N):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_tile"):
                for kb in pl.range(K // TILE_K):
                    k0 = kb * TILE_K
                    a_tile = a[m : m + TILE_M, k0 : k0 + TILE_K]
                    b_tile = b[k0 : k0 + TILE_K, n : n + TILE_N]
                    # The first block starts the FP32 accumulator, the others add to it.
                    if kb == 0:
                        acc = pl.matmul(a_tile, b_tile, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, a_tile, b_tile)
                c[m : m + TILE_M, n : n + TILE_N] = acc
    return c


def build_specs():
    return [
        TensorSpec("a", [M, K], torch.bfloat16, init_value=torch.randn),
        TensorSpec("b", [K, N], torch.bfloat16, init_value=torch.randn),
        TensorSpec("c", [M, N], torch.float32),
    ]


def golden_gemm(values):
    values["c"][:] = values["a"].float() @ values["b"].float()



def main(golden_fn=golden_gemm):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=gemm,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
