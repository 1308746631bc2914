"""matmul: C = A @ B in FP32, one task per output tile, the whole K extent at once.

Run on the simulator:
    pypto-golden samples/matmul.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

M, N, K = 512, 512, 512
TILE_M, TILE_N = 128, 128


@pl.jit
def matmul(
    a: pl.Tensor[[M, K], pl.FP32],
    b: pl.Tensor[[K, N], pl.FP32],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    # Every (row block, column block) pair of C is an independent task.
    for m in pl.parallel(0, M, TILE_M):
        for n in pl.parallel(0, N, TILE_N):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="matmul_tile"):
                c[m : m + TILE_M, n : n + TILE_N] = pl.matmul(a[m : m + TILE_M, :], b[:, n : n + TILE_N])
    return c


def build_specs():
    return [
        TensorSpec("a", [M, K], torch.float32, init_value=torch.randn),
        TensorSpec("b", [K, N], torch.float32, init_value=torch.randn),
        TensorSpec("c", [M, N], torch.float32),
    ]


def golden_matmul(values):
    values["c"][:] = values["a"] @ values["b"]



def main(golden_fn=golden_matmul):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=matmul,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-3,
        atol=1e-3,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
