"""Benchmark of rank workers in processes. Prints ratios against baselines measured in the
same run; never asserts on time.

    .venv/bin/python tests/bench/bench_ranks.py [--mib 64]

1. start-up: 4 local `pypto-golden --worker` processes started, joined at the rendezvous and
   in a Gloo group with this process (a link check of 0 bytes), against one cold
   `pypto-golden samples/hello_world.py` run (target: <= 2x).
2. the link: MiB to each of 2 workers and back through the host's C++ messages, against the
   same round trip between two Python processes with torch.distributed's gloo send / recv.
"""

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import _pypto_golden  # noqa: E402


def cold_run_s():
    start = time.perf_counter()
    subprocess.run([str(BUILD / "bin" / "pypto-golden"), str(REPO / "samples" / "hello_world.py"), "-p", "a2a3sim"],
                   check=True, capture_output=True, cwd="/tmp")
    return time.perf_counter() - start


def echo_peer(port, nbytes, rounds):
    store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=60))
    group = dist.ProcessGroupGloo(store, 1, 2, timedelta(seconds=60))
    buf = torch.empty(nbytes, dtype=torch.uint8)
    for _ in range(rounds):
        group.recv([buf], 0, 0).wait()
        group.send([buf], 0, 0).wait()


def torch_round_trip_us(nbytes, rounds):
    """Median round trip of nbytes between this process and a second one, in Python."""
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    peer = multiprocessing.get_context("spawn").Process(target=echo_peer, args=(store.port, nbytes, rounds))
    peer.start()
    group = dist.ProcessGroupGloo(store, 0, 2, timedelta(seconds=60))
    sent = torch.randint(0, 256, (nbytes,), dtype=torch.uint8)
    back = torch.empty_like(sent)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        group.send([sent], 1, 0).wait()
        group.recv([back], 1, 0).wait()
        samples.append((time.perf_counter() - start) * 1e6)
    peer.join()
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64, help="MiB per round trip (default 64)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    nbytes = args.mib << 20
    print(f"cores: {os.cpu_count()}")

    cold = statistics.median(cold_run_s() for _ in range(3))
    starts = []
    for _ in range(3):
        start = time.perf_counter()
        _pypto_golden._rank_link_check(4, 0)
        starts.append(time.perf_counter() - start)
    up = statistics.median(starts)
    print(f"start-up of 4 workers {up:.2f} s; one cold pypto-golden run {cold:.2f} s; ratio {up / cold:.2f} "
          f"(target <= 2)")

    ours = []
    for _ in range(args.rounds):
        ours.append(min(_pypto_golden._rank_link_check(2, nbytes)))
    theirs = torch_round_trip_us(nbytes, args.rounds)
    mine = statistics.median(ours)
    print(f"{args.mib} MiB round trip: ours {mine:.0f} us, torch.distributed (gloo, Python) {theirs:.0f} us; "
          f"ratio {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
