"""Benchmark of L3 programs on the simulator. Prints ratios against baselines measured in
the same run; never asserts on time.

    .venv/bin/python tests/bench/bench_l3.py [--mib 64]

1. all-reduce bandwidth: a 2- and a 4-rank all-reduce of MiB fp32 per rank (each rank puts
   its data into every peer's window, signals, waits and sums) against a torch memcpy of
   the bytes one rank sends (target: within 2x; the ranks share this machine's cores, so
   the ratio grows with ranks beyond the core count).
2. fixed overhead of an L3 dispatch: a host program launching an empty chip program on 4
   ranks, median host_us (target: <= 100 us).
3. with --ranks process: an all-reduce with its ranks in worker processes
   (PYPTO_SIM_RANKS=process) that moves the bytes gloo's ring moves (a reduce-scatter, then
   an all-gather) on resident tensors, dispatch median, against torch.distributed.all_reduce
   (gloo) of the same bytes between as many Python processes (target: within 2x).
"""

import argparse
import contextlib
import io
import multiprocessing
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]

import torch  # noqa: E402

import pypto.language as pl  # noqa: E402
import pypto.language.distributed as pld  # noqa: E402
from golden import TensorSpec, run  # noqa: E402
from pypto.ir.distributed_compiled_program import DistributedConfig  # noqa: E402
from pypto.runtime import RunConfig  # noqa: E402

COLS = 1024
TILE_ROWS = 64


def allreduce_program(world, rows):
    """A @pl.jit.host all-reduce of [rows, COLS] fp32 per rank over `world` ranks."""

    @pl.jit.incore
    def reduce_step(x: pl.Tensor[[rows, COLS], pl.FP32], y: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
                    inbox: pld.DistributedTensor[[world * rows, COLS], pl.FP32],
                    arrived: pld.DistributedTensor[[1, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
        for k in pl.range(1, world):
            pld.tensor.put(inbox, (me + k) % world, x, [me * rows, 0])
            pld.system.notify(arrived, peer=(me + k) % world, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(arrived, offsets=[0, 0], expected=world - 1, cmp=pld.WaitCmp.Ge)
        for t in pl.range(rows // TILE_ROWS):
            acc = pl.load(x, [t * TILE_ROWS, 0], [TILE_ROWS, COLS])
            for k in pl.range(1, world):
                src = (me + k) % world
                acc = pl.add(acc, pl.load(inbox, [src * rows + t * TILE_ROWS, 0], [TILE_ROWS, COLS]))
            y = pl.store(acc, [t * TILE_ROWS, 0], y)
        pld.system.notify(arrived, peer=me, offsets=[0, 0], value=0, op=pld.NotifyOp.Set)
        return y

    @pl.jit
    def reduce_chip(x: pl.Tensor[[rows, COLS], pl.FP32], y: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
                    inbox: pld.DistributedTensor[[world * rows, COLS], pl.FP32],
                    arrived: pld.DistributedTensor[[1, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
        return reduce_step(x, y, inbox, arrived, me)

    @pl.jit.host
    def allreduce(xs: pl.Tensor[[world, rows, COLS], pl.FP32], ys: pl.Out[pl.Tensor[[world, rows, COLS], pl.FP32]]):
        inbox_buf = pld.alloc_window_buffer([world * rows, COLS], dtype=pl.FP32)
        arrived_buf = pld.alloc_window_buffer(4)
        for r in pl.range(pld.world_size()):
            inbox = pld.window(inbox_buf, [world * rows, COLS], dtype=pl.FP32)
            arrived = pld.window(arrived_buf, [1, 1], dtype=pl.INT32)
            reduce_chip(xs[r], ys[r], inbox, arrived, r, device=r)

    return allreduce


def ring_like_program(world, rows):
    """An all-reduce that moves what gloo's ring does, 2 (world - 1) / world of the bytes per
    rank: a reduce-scatter (rank j sums chunk j of every rank's rows) then an all-gather
    (rank j sends its summed chunk to every peer)."""
    chunk = rows // world

    @pl.jit.incore
    def rsag_step(x: pl.Tensor[[rows, COLS], pl.FP32], y: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
                  inbox: pld.DistributedTensor[[rows, COLS], pl.FP32],
                  gathered: pld.DistributedTensor[[rows, COLS], pl.FP32],
                  arrived: pld.DistributedTensor[[2, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
        for k in pl.range(1, world):
            peer = (me + k) % world
            pld.tensor.put(inbox, peer, x[peer * chunk:(peer + 1) * chunk, :], [me * chunk, 0])
            pld.system.notify(arrived, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(arrived, offsets=[0, 0], expected=world - 1, cmp=pld.WaitCmp.Ge)
        for t in pl.range(chunk // TILE_ROWS):
            acc = pl.load(x, [me * chunk + t * TILE_ROWS, 0], [TILE_ROWS, COLS])
            for k in pl.range(1, world):
                src = (me + k) % world
                acc = pl.add(acc, pl.load(inbox, [src * chunk + t * TILE_ROWS, 0], [TILE_ROWS, COLS]))
            y = pl.store(acc, [me * chunk + t * TILE_ROWS, 0], y)
        for k in pl.range(1, world):
            peer = (me + k) % world
            pld.tensor.put(gathered, peer, y[me * chunk:(me + 1) * chunk, :], [me * chunk, 0])
            pld.system.notify(arrived, peer=peer, offsets=[1, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(arrived, offsets=[1, 0], expected=world - 1, cmp=pld.WaitCmp.Ge)
        for k in pl.range(1, world):
            src = (me + k) % world
            y[src * chunk:(src + 1) * chunk, :] = gathered[src * chunk:(src + 1) * chunk, :]
        pld.system.notify(arrived, peer=me, offsets=[0, 0], value=0, op=pld.NotifyOp.Set)
        pld.system.notify(arrived, peer=me, offsets=[1, 0], value=0, op=pld.NotifyOp.Set)
        return y

    @pl.jit
    def rsag_chip(x: pl.Tensor[[rows, COLS], pl.FP32], y: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
                  inbox: pld.DistributedTensor[[rows, COLS], pl.FP32],
                  gathered: pld.DistributedTensor[[rows, COLS], pl.FP32],
                  arrived: pld.DistributedTensor[[2, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
        return rsag_step(x, y, inbox, gathered, arrived, me)

    @pl.jit.host
    def allreduce(xs: pl.Tensor[[world, rows, COLS], pl.FP32], ys: pl.Out[pl.Tensor[[world, rows, COLS], pl.FP32]]):
        inbox_buf = pld.alloc_window_buffer([rows, COLS], dtype=pl.FP32)
        gathered_buf = pld.alloc_window_buffer([rows, COLS], dtype=pl.FP32)
        arrived_buf = pld.alloc_window_buffer(8)
        for r in pl.range(pld.world_size()):
            inbox = pld.window(inbox_buf, [rows, COLS], dtype=pl.FP32)
            gathered = pld.window(gathered_buf, [rows, COLS], dtype=pl.FP32)
            arrived = pld.window(arrived_buf, [2, 1], dtype=pl.INT32)
            rsag_chip(xs[r], ys[r], inbox, gathered, arrived, r, device=r)

    return allreduce


def empty_program(world):
    @pl.jit.incore
    def nothing(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        return y

    @pl.jit
    def empty_chip(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        return nothing(x, y)

    @pl.jit.host
    def empty(xs: pl.Tensor[[world, 8, 8], pl.FP32], ys: pl.Out[pl.Tensor[[world, 8, 8], pl.FP32]]):
        for r in pl.range(pld.world_size()):
            empty_chip(xs[r], ys[r], device=r)

    return empty


def bench(fn, specs, world, rounds, golden_fn=None):
    os.environ.update(PYPTO_BENCH="1", PYPTO_BENCH_ROUNDS=str(rounds), PYPTO_BENCH_WARMUP="2")
    with contextlib.redirect_stdout(io.StringIO()):
        result = run(fn=fn, specs=specs, golden_fn=golden_fn,
                     config=RunConfig(platform="a2a3sim",
                                      distributed_config=DistributedConfig(device_ids=list(range(world)))))
    assert result.passed, result.error
    return result.bench


def memcpy_us(nbytes, rounds=10):
    src = torch.randn(nbytes // 4)
    dst = torch.empty_like(src)
    dst.copy_(src)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        dst.copy_(src)
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def all_reduce_rank(port, rank, world, numel, rounds, out):
    import torch.distributed as dist
    store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=120))
    group = dist.ProcessGroupGloo(store, rank, world, timedelta(seconds=120))
    x = torch.randn(numel)
    group.allreduce([x]).wait()  # warm the connections
    samples = []
    for _ in range(rounds):
        group.barrier().wait()
        start = time.perf_counter()
        group.allreduce([x]).wait()
        samples.append((time.perf_counter() - start) * 1e6)
    out.put((rank, statistics.median(samples)))


def torch_all_reduce_us(world, numel, rounds=5):
    """Median torch.distributed.all_reduce (gloo) of numel fp32 over `world` Python processes,
    the slowest rank's."""
    import torch.distributed as dist
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=120))
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=all_reduce_rank, args=(store.port, r, world, numel, rounds, out)) for r in range(world)]
    for p in procs:
        p.start()
    medians = [out.get(timeout=600)[1] for _ in procs]
    for p in procs:
        p.join()
    return max(medians)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64, help="MiB of fp32 per rank (default 64)")
    parser.add_argument("--ranks", choices=("thread", "process"), default="thread",
                        help="thread: parts 1 and 2; process: part 3")
    args = parser.parse_args()
    rows = args.mib * 1024 * 1024 // (4 * COLS)
    rows -= rows % (4 * TILE_ROWS)  # whole tiles per chunk of 2 and 4 ranks
    nbytes = rows * COLS * 4
    print(f"cores: {os.cpu_count()}, {nbytes / 2**20:.0f} MiB fp32 per rank")
    if args.ranks == "process":
        os.environ["PYPTO_SIM_RANKS"] = "process"
        for world in (2, 4):
            # Resident, as torch's tensors live in their ranks' processes: a benchmark
            # dispatch moves only what the ranks send each other.
            specs = [TensorSpec("xs", [world, rows, COLS], torch.float32, init_value=torch.randn, resident="stacked"),
                     TensorSpec("ys", [world, rows, COLS], torch.float32, resident="stacked")]
            stats = bench(ring_like_program(world, rows), specs, world, rounds=10,
                          golden_fn=lambda v: v["ys"].copy_(v["xs"].sum(0, keepdim=True).expand_as(v["ys"])))
            theirs = torch_all_reduce_us(world, rows * COLS, rounds=10)
            print(f"allreduce {world} ranks in worker processes: dispatch median {stats.median:.0f} us; "
                  f"torch.distributed.all_reduce (gloo, {world} Python processes) {theirs:.0f} us; "
                  f"ratio {stats.median / theirs:.2f} (target <= 2)")
        return
    for world in (2, 4):
        specs = [TensorSpec("xs", [world, rows, COLS], torch.float32, init_value=torch.randn),
                 TensorSpec("ys", [world, rows, COLS], torch.float32)]
        stats = bench(allreduce_program(world, rows), specs, world, rounds=5,
                      golden_fn=lambda v: v["ys"].copy_(v["xs"].sum(0, keepdim=True).expand_as(v["ys"])))
        baseline = memcpy_us(nbytes * (world - 1))
        rank_us = max(statistics.median(s) for s in stats.rank_samples)
        print(f"allreduce {world} ranks: dispatch median {stats.median:.0f} us, slowest rank {rank_us:.0f} us; "
              f"memcpy of one rank's {world - 1} x {nbytes / 2**20:.0f} MiB {baseline:.0f} us; "
              f"ratio {rank_us / baseline:.2f} (target <= 2)")
    specs = [TensorSpec("xs", [4, 8, 8], torch.float32), TensorSpec("ys", [4, 8, 8], torch.float32)]
    stats = bench(empty_program(4), specs, 4, rounds=200)
    print(f"empty L3 dispatch on 4 ranks: median {stats.median:.1f} us (target <= 100)")


if __name__ == "__main__":
    main()
