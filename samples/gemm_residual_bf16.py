"""gemm_residual_bf16: resid = attn @ wo + hidden, BF16 operands, FP32 accumulation and output.

Each task owns a column block of the output; its K loop starts the FP32 accumulator with
pl.matmul(..., out_dtype=pl.FP32) and adds the other blocks with pl.matmul_acc. The BF16
residual is widened with pl.cast before the add (no implicit promotion).

Run on the simulator:
    pypto-golden samples/gemm_residual_bf16.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

M, K, N = 64, 1024, 1024
K_TILE, N_TILE = 256, 128


@pl.jit
def gemm_residual_bf16(
    attn: pl.Tensor[[M, K], pl.BF16],
    wo: pl.Tensor[[K, N], pl.BF16],
    hidden: pl.Tensor[[M, N], pl.BF16],
    resid: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for n0 in pl.parallel(0, N, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_residual_tile"):
            for kb in pl.range(K // K_TILE):
                k0 = kb * K_TILE
                a_k = attn[:, k0 : k0 + K_TILE]
                w_k = wo[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                if kb == 0:
                    acc = pl.matmul(a_k, w_k, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, a_k, w_k)
            h = pl.cast(hidden[:, n0 : n0 + N_TILE], target_type=pl.FP32)
            resid[:, n0 : n0 + N_TILE] = pl.add(acc, h)
    return resid


def build_specs():
    return [
        TensorSpec("attn", [M, K], torch.bfloat16, init_value=torch.randn),
        TensorSpec("wo", [K, N], torch.bfloat16, init_value=lambda: torch.randn(K, N) / 32),
        TensorSpec("hidden", [M, N], torch.bfloat16, init_value=torch.randn),
        TensorSpec("resid", [M, N], torch.float32),
    ]


def golden_gemm_residual_bf16(values):
    values["resid"][:] = values["attn"].float() @ values["wo"].float() + values["hidden"].float()


def main(golden_fn=golden_gemm_residual_bf16):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=gemm_residual_bf16,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-3,
        atol=1e-3,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
