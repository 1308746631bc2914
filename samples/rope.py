"""rope: rotary position embedding with a cos / sin row per position, shared by the heads
of that position (rotate-half form).

Run on the simulator:
    pypto-golden samples/rope.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

SEQ, HEADS, HEAD_DIM = 128, 32, 128
HALF = HEAD_DIM // 2
POS_TILE = 8


@pl.jit
def rope(
    x: pl.Tensor[[SEQ * HEADS, HEAD_DIM], pl.FP32],
    cos: pl.Tensor[[SEQ, HEAD_DIM], pl.FP32],
    sin: pl.Tensor[[SEQ, HEAD_DIM], pl.FP32],
    y: pl.Out[pl.Tensor[[SEQ * HEADS, HEAD_DIM], pl.FP32]],
):
    for p0 in pl.parallel(0, SEQ, POS_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rope_positions"):
            for p in pl.range(p0, p0 + POS_TILE):
                rows = p * HEADS
                lo = x[rows : rows + HEADS, 0:HALF]
                hi = x[rows : rows + HEADS, HALF:HEAD_DIM]
                # y_lo = x_lo * cos_lo - x_hi * sin_lo;  y_hi = x_hi * cos_hi + x_lo * sin_hi
                y[rows : rows + HEADS, 0:HALF] = pl.sub(
                    pl.col_expand_mul(lo, cos[p : p + 1, 0:HALF]), pl.col_expand_mul(hi, sin[p : p + 1, 0:HALF])
                )
                y[rows : rows + HEADS, HALF:HEAD_DIM] = pl.add(
                    pl.col_expand_mul(hi, cos[p : p + 1, HALF:HEAD_DIM]),
                    pl.col_expand_mul(lo, sin[p : p + 1, HALF:HEAD_DIM]),
                )
    return y


def build_specs():
    return [
        TensorSpec("x", [SEQ * HEADS, HEAD_DIM], torch.float32, init_value=torch.randn),
        TensorSpec("cos", [SEQ, HEAD_DIM], torch.float32, init_value=torch.randn),
        TensorSpec("sin", [SEQ, HEAD_DIM], torch.float32, init_value=torch.randn),
        TensorSpec("y", [SEQ * HEADS, HEAD_DIM], torch.float32),
    ]


def golden_rope(values):
    x = values["x"].view(SEQ, HEADS, HEAD_DIM)
    cos = values["cos"].view(SEQ, 1, HEAD_DIM)
    sin = values["sin"].view(SEQ, 1, HEAD_DIM)
    rotated = torch.cat([-x[..., HALF:], x[..., :HALF]], dim=-1)
    values["y"][:] = (x * cos + rotated * sin).view(SEQ * HEADS, HEAD_DIM)


def main(golden_fn=golden_rope):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=rope,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
