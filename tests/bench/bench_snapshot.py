"""Benchmark of snapshot I/O (issue: reproducible runs). Prints ratios against `cp` of the
same bytes on the same disk, measured in the same run; never asserts on time.

    .venv/bin/python tests/bench/bench_snapshot.py [--gib 1.0] [--dir DIR]

save: native save_tensor of a GiB-sized tensor (streamed into a temp file, renamed) vs `cp`.
load: native load_tensor of that file vs `cp` of it to another file (page cache warm for both).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]

import torch  # noqa: E402

import golden  # noqa: E402,F401
from golden.native import native  # noqa: E402


def timed(fn, rounds=5):
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--dir", default=None, help="directory on the disk to measure (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        tmp = Path(tmp)
        numel = int(args.gib * (1 << 30)) // 4
        t = torch.randn(numel)
        pt, raw, copy = tmp / "snap.pt", tmp / "raw.bin", tmp / "copy.bin"
        t.numpy().tofile(raw)
        nbytes = t.numel() * 4

        def cp():
            subprocess.run(["cp", str(raw), str(copy)], check=True)

        save = timed(lambda: native.save_tensor(str(pt), t))
        cp_save = timed(cp)
        load = timed(lambda: native.load_tensor(str(pt)))
        cp_load = timed(cp)
        assert torch.equal(native.load_tensor(str(pt)), t)
        gib = nbytes / (1 << 30)
        print(f"snapshot of {gib:.2f} GiB on {tmp}")
        print(f"save: {gib / save:.2f} GiB/s vs cp {gib / cp_save:.2f} GiB/s, "
              f"speed ratio {cp_save / save:.2f} (target >= 0.50)")
        print(f"load: {gib / load:.2f} GiB/s vs cp {gib / cp_load:.2f} GiB/s, "
              f"speed ratio {cp_load / load:.2f} (target >= 0.50)")


if __name__ == "__main__":
    main()
