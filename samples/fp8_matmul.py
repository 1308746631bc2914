"""fp8_matmul: quantise activations to FP8 (e4m3) in the kernel and multiply them with FP8
weights, accumulating in FP32.

The cast saturates as the hardware's FP8 conversion does: an activation past +-448 becomes
+-448. The golden clamps before `.to(torch.float8_e4m3fn)`, which saturates in current
torch but not in every release. Both outputs are validated: the FP8 activations (compared
in FP32) and the product.

Run on the simulator:
    pypto-golden samples/fp8_matmul.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

M, K, N = 256, 256, 128
TILE_M = 64
FP8_MAX = 448.0


@pl.jit
def fp8_matmul(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[K, N], pl.FP8E4M3FN],
    xq: pl.Out[pl.Tensor[[M, K], pl.FP8E4M3FN]],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for m in pl.parallel(0, M, TILE_M):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="quant_matmul"):
            q = pl.cast(x[m : m + TILE_M, :], pl.FP8E4M3FN, mode="rint")
            xq[m : m + TILE_M, :] = q
            y[m : m + TILE_M, :] = pl.matmul(q, w, out_dtype=pl.FP32)
    return xq, y


def activations():
    # Wide enough that a few percent of the values saturate.
    return torch.randn(M, K) * 200.0


def build_specs():
    return [
        TensorSpec("x", [M, K], torch.float32, init_value=activations),
        TensorSpec("w", [K, N], torch.float8_e4m3fn, init_value=torch.randn),
        TensorSpec("xq", [M, K], torch.float8_e4m3fn),
        TensorSpec("y", [M, N], torch.float32),
    ]


def golden_fp8_matmul(values):
    xq = values["x"].clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    values["xq"][:] = xq
    values["y"][:] = xq.float() @ values["w"].float()


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=fp8_matmul,
        specs=build_specs(),
        golden_fn=golden_fp8_matmul,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-2,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
