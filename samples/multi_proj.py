"""multi_proj: q, k, v = x @ wq, x @ wk, x @ wv through one @pl.jit.inline helper.

The helper writes into the caller's Out tensors (its parameters alias them) and the
kernel returns the three projections as a tuple.

Run on the simulator:
    pypto-golden samples/multi_proj.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

TOKENS, HIDDEN = 128, 256
Q_DIM, KV_DIM = 256, 64
ROW_TILE = 32


@pl.jit.inline
def project(x, w, out):
    # `out` is the caller's tensor: its shape is known where the helper is spliced.
    rows, cols = out.shape
    for r in pl.parallel(0, rows, ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="project"):
            out[r : r + ROW_TILE, :] = pl.matmul(x[r : r + ROW_TILE, :], w, out_dtype=pl.FP32)
    return out


@pl.jit
def multi_proj(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    wq: pl.Tensor[[HIDDEN, Q_DIM], pl.BF16],
    wk: pl.Tensor[[HIDDEN, KV_DIM], pl.BF16],
    wv: pl.Tensor[[HIDDEN, KV_DIM], pl.BF16],
    q: pl.Out[pl.Tensor[[TOKENS, Q_DIM], pl.FP32]],
    k: pl.Out[pl.Tensor[[TOKENS, KV_DIM], pl.FP32]],
    v: pl.Out[pl.Tensor[[TOKENS, KV_DIM], pl.FP32]],
):
    q = project(x, wq, q)
    k = project(x, wk, k)
    v = project(x, wv, v)
    return q, k, v


def build_specs():
    return [
        TensorSpec("x", [TOKENS, HIDDEN], torch.bfloat16, init_value=torch.randn),
        TensorSpec("wq", [HIDDEN, Q_DIM], torch.bfloat16, init_value=torch.randn),
        TensorSpec("wk", [HIDDEN, KV_DIM], torch.bfloat16, init_value=torch.randn),
        TensorSpec("wv", [HIDDEN, KV_DIM], torch.bfloat16, init_value=torch.randn),
        TensorSpec("q", [TOKENS, Q_DIM], torch.float32),
        TensorSpec("k", [TOKENS, KV_DIM], torch.float32),
        TensorSpec("v", [TOKENS, KV_DIM], torch.float32),
    ]


def golden_multi_proj(values):
    x = values["x"].float()
    values["q"][:] = x @ values["wq"].float()
    values["k"][:] = x @ values["wk"].float()
    values["v"][:] = x @ values["wv"].float()



def main(golden_fn=golden_multi_proj):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=multi_proj,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
