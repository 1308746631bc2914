"""Benchmark of the native validation gates (issue: native validation). Prints ratios against
baselines measured in the same run, and the memory each gate adds; never asserts.

    .venv/bin/python tests/bench/bench_validation.py [--mi 64] [--rounds 5]

Data: two float32 tensors of MI Mi elements (64 Mi: 256 MiB each), the golden and a copy;
the failing case adds 1 to every third element.

1. default allclose over the time to read both tensors once (a.sum() + e.sum())  (target <= 3)
2. torch.allclose over the default allclose                                        (target ~20x)
3. ratio_allclose and ratio_reldiff over the default allclose                      (target <= 1.5)
4. bf16 / fp16: allclose over reading both once, in place (no float32 copies)
5. peak memory added by each gate (pass and fail), measured in a fresh subprocess with
   /proc/self/status VmHWM after resetting it (target <= 16 MiB)

The gates run on PYPTO_GOLDEN_NUM_THREADS threads (torch's intra-op threads; default 16), as in
a run: the script imports golden, which sets them.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
PYTHON = sys.executable  # the interpreter the build was made with (.venv/bin/python)


def setup_paths():
    sys.path[:0] = [str(REPO / "pylib"), str(BUILD / "python")]


def best(fn, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def machine():
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import torch

    return (f"{model}, {os.cpu_count()} cores, {platform.machine()}, torch {torch.__version__}, "
            f"golden threads {torch.get_num_threads()}")


def fp32_timings(n, rounds):
    import torch

    from golden import validation as V
    from golden.native import native

    torch.manual_seed(0)
    a = torch.randn(n)
    e = a.clone()
    ctx = dict(actual_outputs={}, expected_outputs={}, inputs={}, rtol=1e-5, atol=1e-5)
    ratio_gate, reldiff_gate = V.ratio_allclose(), V.ratio_reldiff()

    read, read_med = best(lambda: (a.sum(), e.sum()), rounds)
    results = {}
    for label in ("pass", "fail"):
        if label == "fail":
            e[::3] += 1.0
        results[label] = {
            "allclose": best(lambda: native.allclose("y", a, e, 1e-5, 1e-5), rounds),
            "ratio_allclose": best(lambda: ratio_gate(a, e, **ctx), rounds),
            "ratio_reldiff": best(lambda: reldiff_gate(a, e, **ctx), rounds),
        }
    e[::3] -= 1.0
    torch_allclose, torch_med = best(lambda: torch.allclose(a, e, 1e-5, 1e-5), max(1, rounds // 2))
    return read, read_med, results, torch_allclose, torch_med


def half_timings(dtype, n, rounds):
    import torch

    from golden import validation as V
    from golden.native import native

    ctx = dict(actual_outputs={}, expected_outputs={}, inputs={}, rtol=1e-5, atol=1e-5)
    torch.manual_seed(0)
    a = torch.randn(n).to(dtype)
    e = a.clone()
    read = best(lambda: (a.sum(), e.sum()), rounds)
    gate = best(lambda: native.allclose("y", a, e, 1e-5, 1e-5), rounds)
    ratio = best(lambda: V.ratio_allclose()(a, e, **ctx), rounds)
    name = str(dtype).replace("torch.", "")
    print(f"{name}: read both {read[0] * 1e3:.1f} ms, allclose {gate[0] * 1e3:.1f} ms "
          f"(/ read = {gate[0] / read[0]:.2f}), ratio_allclose {ratio[0] * 1e3:.1f} ms")


def timings(mi, rounds):
    import torch

    import golden  # noqa: F401  (sets the golden's threads, as in a run)

    print(f"machine: {machine()}")
    print(f"data: 2 x float32[{mi} Mi] ({2 * mi * 4} MiB), best of {rounds} rounds (median in brackets)")
    read, read_med, results, torch_allclose, torch_med = fp32_timings(mi * 1024 * 1024, rounds)

    def ms(t):
        return f"{t[0] * 1e3:7.1f} ms [{t[1] * 1e3:.1f}]"

    print(f"{'read both once (sum)':24s} {read * 1e3:7.1f} ms [{read_med * 1e3:.1f}]")
    for label in ("pass", "fail"):
        r = results[label]
        print(f"{f'allclose ({label})':24s} {ms(r['allclose'])}"
              f"   / read = {r['allclose'][0] / read:5.2f}  (target <= 3)")
        for gate in ("ratio_allclose", "ratio_reldiff"):
            print(f"{f'{gate} ({label})':24s} {ms(r[gate])}   / allclose = "
                  f"{r[gate][0] / r['allclose'][0]:5.2f}  (target <= 1.5)")
    print(f"{'torch.allclose (pass)':24s} {torch_allclose * 1e3:7.1f} ms [{torch_med * 1e3:.1f}]   "
          f"/ allclose = {torch_allclose / results['pass']['allclose'][0]:5.1f}x  (target ~20x)")
    for dtype in (torch.bfloat16, torch.float16):
        half_timings(dtype, mi * 1024 * 1024, rounds)


# --- memory: one fresh process, VmHWM reset before each gate --------------------------------


def status_kib(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak():
    """Resets VmHWM to the current RSS (Linux >= 4.0); False where not permitted."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def memory_child(mi):
    import torch

    import golden  # noqa: F401
    from golden import validation as V
    from golden.native import native

    n = mi * 1024 * 1024
    ctx = dict(actual_outputs={}, expected_outputs={}, inputs={}, rtol=1e-5, atol=1e-5)
    gates = {
        "allclose": lambda a, e: native.allclose("y", a, e, 1e-5, 1e-5),
        "ratio_allclose": lambda a, e: V.ratio_allclose()(a, e, **ctx),
        "ratio_reldiff": lambda a, e: V.ratio_reldiff()(a, e, **ctx),
    }
    out = {"reset": True}
    for dtype in (torch.float32, torch.bfloat16):
        a = torch.ones(n, dtype=dtype)
        e = torch.ones(n, dtype=dtype)
        for case in ("pass", "fail"):
            if case == "fail":
                e[::3] += 1.0
            for name, gate in gates.items():
                gate(a[:1024], e[:1024])  # warm up threads and code
                before = status_kib("VmRSS")
                out["reset"] &= reset_peak()
                gate(a, e)
                out[f"{name} {str(dtype).replace('torch.', '')} {case}"] = status_kib("VmHWM") - before
        if dtype == torch.float32:  # the method's reference point: torch.allclose's temporaries
            e[::3] -= 1.0
            before = status_kib("VmRSS")
            out["reset"] &= reset_peak()
            torch.allclose(a, e, 1e-5, 1e-5)
            out["(torch.allclose float32 pass)"] = status_kib("VmHWM") - before
        del a, e
    print(json.dumps(out))


def memory(mi):
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{REPO / 'pylib'}:{BUILD / 'python'}"
    proc = subprocess.run([PYTHON, __file__, "--memory-child", "--mi", str(mi)], env=env, capture_output=True,
                          text=True, check=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result.pop("reset"):
        print("memory: /proc/self/clear_refs is not writable here; growth is measured against the earlier peak")
    worst = max(v for k, v in result.items() if not k.startswith("("))
    print(f"peak memory added during validation (target <= 16 MiB), worst {worst / 1024:.1f} MiB:")
    for key, kib in result.items():
        print(f"  {key:28s} {kib / 1024:6.1f} MiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64, help="elements per tensor, in Mi (default 64)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    setup_paths()
    if args.memory_child:
        memory_child(args.mi)
        return
    timings(args.mi, args.rounds)
    memory(args.mi)


if __name__ == "__main__":
    main()
