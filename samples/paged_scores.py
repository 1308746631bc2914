"""paged_scores: attention-style scores over rows picked from a paged pool.

- pl.create_l1 + pl.gather_row gather the table's rows of the pool into an on-chip tile;
- pl.tile.transpose_view reads that tile as its transpose (same bytes) for q @ kv^T;
- pl.row_argmax gives each query's best row;
- two blocks of a pl.spmd split the work with a pl.system.syncall barrier between them:
  each block scales its half of the scores, and after the barrier reads the other half;
- pl.tensor.scatter interleaves the two halves column by column (mask form), and pl.fmods
  wraps each best index into a page slot.

Run on the simulator:
    pypto-golden samples/paged_scores.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import TensorSpec, exit_on_failure, parse_kernel_args, run

POOL, D, R, M = 64, 32, 16, 8
HALF = M // 2
PAGE = 5.0


@pl.jit
def paged_scores(
    pool: pl.Tensor[[POOL, D], pl.FP32],
    table: pl.Tensor[[R], pl.INT32],
    q: pl.Tensor[[M, D], pl.FP32],
    scores: pl.Out[pl.Tensor[[M, R], pl.FP32]],
    best: pl.Out[pl.Tensor[[M, 1], pl.INT32]],
    mixed: pl.Out[pl.Tensor[[HALF, 2 * R], pl.FP32]],
    slot: pl.Out[pl.Tensor[[M, 1], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather"):
        kv = pl.create_l1([R, D], pl.FP32)
        for r in pl.range(R):
            row = pl.cast(pl.read(table, [r]), pl.INDEX)
            kv = pl.gather_row(kv, pool, [r, 0], [row, 0], [1, D])
        s = pl.matmul(q, pl.tile.transpose_view(kv))  # [M, R]
        scores[:, :] = s
        top = pl.row_argmax(s)
        best[:, :] = top
        slot[:, :] = pl.fmods(pl.cast(top, target_type=pl.FP32), PAGE)
    halves = pl.create_tensor([M, R], dtype=pl.FP32)
    for blk in pl.spmd(2, name_hint="halves", sync_start=True):
        mine = pl.mul(scores[blk * HALF : blk * HALF + HALF, :], 0.5)
        halves[blk * HALF : blk * HALF + HALF, :] = mine
        pl.system.syncall(core_type="mix")
        if blk == 0:  # after the barrier, block 0 reads block 1's half
            other = halves[HALF:M, :]
            both = pl.full([HALF, 2 * R], dtype=pl.FP32, value=0.0)
            both = pl.tensor.scatter(mine, mask_pattern=pl.tile.MaskPattern.P0101, dst=both)
            both = pl.tensor.scatter(other, mask_pattern=pl.tile.MaskPattern.P1010, dst=both)
            mixed[:, :] = both
    return scores, best, mixed, slot


def build_specs():
    return [
        TensorSpec("pool", [POOL, D], torch.float32, init_value=torch.randn),
        TensorSpec("table", [R], torch.int32, init_value=lambda: torch.randperm(POOL)[:R].to(torch.int32)),
        TensorSpec("q", [M, D], torch.float32, init_value=torch.randn),
        TensorSpec("scores", [M, R], torch.float32),
        TensorSpec("best", [M, 1], torch.int32),
        TensorSpec("mixed", [HALF, 2 * R], torch.float32),
        TensorSpec("slot", [M, 1], torch.float32),
    ]


def golden_paged_scores(values):
    kv = values["pool"][values["table"].long()]
    s = values["q"] @ kv.T
    values["scores"][:] = s
    values["best"][:] = s.argmax(dim=-1, keepdim=True).to(torch.int32)
    values["slot"][:] = torch.fmod(values["best"].float(), PAGE)
    mixed = torch.empty(HALF, 2 * R)
    mixed[:, 0::2] = 0.5 * s[:HALF]
    mixed[:, 1::2] = 0.5 * s[HALF:]
    values["mixed"][:] = mixed


def main():
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=paged_scores,
        specs=build_specs(),
        golden_fn=golden_paged_scores,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-4,
        atol=1e-4,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
