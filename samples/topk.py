"""topk: the 16 largest scores of every row and their column indices, with the hardware's
sort building blocks: sort32 sorts 32-element blocks into (value, index) pairs, mrgsort
merges sorted runs four at a time, gather picks the value / index lanes of the pairs.

Run on the simulator:
    pypto-golden samples/topk.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run
from golden.validation import topk_pair_compare

ROWS, COLS, TOP = 256, 512, 16
ROW_BLOCK = 16


@pl.jit
def topk(
    scores: pl.Tensor[[ROWS, COLS], pl.FP32],
    topk_vals: pl.Out[pl.Tensor[[ROWS, TOP], pl.FP32]],
    topk_idx: pl.Out[pl.Tensor[[ROWS, TOP], pl.INT32]],
):
    for r0 in pl.parallel(0, ROWS, ROW_BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="topk_rows"):
            positions = pl.arange(0, [1, COLS], dtype=pl.UINT32)
            for r in pl.range(r0, r0 + ROW_BLOCK):
                # 16 sorted runs of 32 pairs -> 4 runs of 128 -> one run of 512 (descending).
                pairs = pl.sort32(scores[r : r + 1, :], positions)
                pairs = pl.mrgsort(pairs, block_len=64)
                pairs = pl.mrgsort(pairs, block_len=256)
                best = pairs[:, 0 : 2 * TOP]
                topk_vals[r : r + 1, :] = pl.gather(best, mask_pattern=pl.tile.MaskPattern.P0101)
                topk_idx[r : r + 1, :] = pl.gather(best, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
    return topk_vals, topk_idx


def build_specs():
    return [
        TensorSpec("scores", [ROWS, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("topk_vals", [ROWS, TOP], torch.float32),
        TensorSpec("topk_idx", [ROWS, TOP], torch.int32),
    ]


def golden_topk(values):
    vals, idx = torch.topk(values["scores"], TOP, dim=-1, largest=True, sorted=True)
    values["topk_vals"][:] = vals
    values["topk_idx"][:] = idx.to(torch.int32)


def main(golden_fn=golden_topk):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=topk,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
        compare_fn={"topk_idx": topk_pair_compare("topk_vals")},
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
