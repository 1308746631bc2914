"""Rank workers in their own processes: a host starts `pypto-golden --worker` children on this
machine, they join its rank store and form a Gloo group with it, data goes to each and back,
and every one is stopped and reaped; a worker that dies is named."""

import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import EXT_DIR, HOST_BIN, PYTHON, REPO, SAMPLES, clean_env

LINK_CHECK = """
import os, sys, _pypto_golden
world, nbytes = int(sys.argv[1]), int(sys.argv[2])
us = _pypto_golden._rank_link_check(world, nbytes)
print(len(us), all(u > 0 for u in us))
try:
    os.waitpid(-1, os.WNOHANG)
    print("a child is left")
except ChildProcessError:
    print("no child left")
"""


@pytest.mark.parametrize("world", [2, 4])
def test_workers_under_python3_form_a_group_and_leave_nothing(python3, tmp_path, world):
    (tmp_path / "link.py").write_text(LINK_CHECK)
    proc = python3("link.py", world, 1 << 20)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{world} True\nno child left\n", "")


def test_workers_of_a_pypto_golden_host_are_its_own_executable(host, tmp_path):
    (tmp_path / "link.py").write_text(LINK_CHECK)
    proc = host("link.py", 2, 3)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "2 True\nno child left\n", "")


def test_a_worker_that_dies_is_named_and_the_rest_are_reaped(python3, tmp_path):
    # Rank 1's process kills itself before it can join; rank 0 would wait for the group.
    wrapper = tmp_path / "worker.sh"
    wrapper.write_text(f'#!/bin/sh\ncase " $* " in *" --rank 1 "*) kill -9 $$ ;; esac\nexec {HOST_BIN} "$@"\n')
    wrapper.chmod(0o755)
    (tmp_path / "link.py").write_text(
        "import os, _pypto_golden\n"
        "try:\n"
        "    _pypto_golden._rank_link_check(2, 8)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "try:\n"
        "    os.waitpid(-1, os.WNOHANG)\n"
        "except ChildProcessError:\n"
        "    print('no child left')\n")
    proc = python3("link.py", env=clean_env(tmp_path, PYPTO_GOLDEN_BIN=wrapper), timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert first.startswith("rank 1 (pid ") and first.endswith(" on this machine) was killed by signal 9 (SIGKILL)")
    assert second == "no child left"


def test_a_worker_executable_that_cannot_start(python3, tmp_path):
    (tmp_path / "link.py").write_text(
        "import _pypto_golden\n"
        "try:\n"
        "    _pypto_golden._rank_link_check(2, 8)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n")
    proc = python3("link.py", env=clean_env(tmp_path, PYPTO_GOLDEN_BIN=tmp_path / "missing"))
    assert proc.stdout == f"cannot start the worker of rank 0 ({tmp_path / 'missing'}): No such file or directory\n"


@pytest.fixture
def two_namespaces():
    """Two network namespaces joined by a veth pair, 10.231.0.1 and 10.231.0.2: two hosts
    standing in for two machines, with no route out of this one. Skipped where namespaces
    cannot be made (no root, no iproute2, a container without the capability)."""
    tag = f"{os.getpid() % 100000}"
    host_ns, work_ns = f"pg-h{tag}", f"pg-w{tag}"
    host_if, work_if = f"pgh{tag}", f"pgw{tag}"
    steps = [["ip", "netns", "add", host_ns], ["ip", "netns", "add", work_ns],
             ["ip", "link", "add", host_if, "type", "veth", "peer", "name", work_if],
             ["ip", "link", "set", host_if, "netns", host_ns], ["ip", "link", "set", work_if, "netns", work_ns],
             ["ip", "-n", host_ns, "addr", "add", "10.231.0.1/24", "dev", host_if],
             ["ip", "-n", work_ns, "addr", "add", "10.231.0.2/24", "dev", work_if]]
    for ns, interface in ((host_ns, host_if), (work_ns, work_if)):
        steps += [["ip", "-n", ns, "link", "set", "lo", "up"], ["ip", "-n", ns, "link", "set", interface, "up"]]
    try:
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                pytest.skip(f"cannot make network namespaces here: {' '.join(step)}: {done.stderr.strip()}")
        yield {"host": (host_ns, host_if), "worker": (work_ns, work_if)}
    except FileNotFoundError:
        pytest.skip("no ip command (iproute2) here")
    finally:
        for ns in (host_ns, work_ns):  # the veth pair goes with them
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def host_and_workers(host_cmd, host_env, worker_cmds, cwd, host_timeout):
    """Runs a host and its workers side by side (each command as given, in its namespace);
    the host's (returncode, stdout, stderr) and each worker's (stdout, stderr, returncode).
    Nothing is left running."""
    pipes = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    host = subprocess.Popen(host_cmd, cwd=cwd, env=host_env, **pipes)
    workers = [subprocess.Popen(cmd, env=env, **pipes) for cmd, env in worker_cmds]
    try:
        out, err = host.communicate(timeout=host_timeout)
        ends = [w.communicate(timeout=30) + (w.returncode,) for w in workers]
    finally:
        for p in [host, *workers]:
            p.kill()
    return (host.returncode, out, err), ends


def test_ranks_across_two_network_namespaces(tmp_path, two_namespaces):
    """The host in one namespace serves the store on its address; two workers in the other,
    started by hand as on a second machine, reach it there and form the group with it."""
    host_ns, host_if = two_namespaces["host"]
    work_ns, work_if = two_namespaces["worker"]
    (tmp_path / "link.py").write_text(
        "import sys, _pypto_golden\n"
        "us = _pypto_golden._rank_link_check(2, 1 << 20, listen='10.231.0.1:29631')\n"
        "print(len(us), all(u > 0 for u in us))\n")
    env = clean_env(tmp_path, PYTHONPATH=f"{REPO / 'pylib'}:{EXT_DIR}", GLOO_SOCKET_IFNAME=host_if,
                    PYPTO_SIM_RANK_TIMEOUT=30)
    worker_env = clean_env(tmp_path, GLOO_SOCKET_IFNAME=work_if, PYPTO_SIM_RANK_TIMEOUT=30)
    host, ends = host_and_workers(
        ["ip", "netns", "exec", host_ns, PYTHON, "link.py"], env,
        [(["ip", "netns", "exec", work_ns, str(HOST_BIN), "--worker", "--store", "10.231.0.1:29631", "--rank", str(r),
           "--world-size", "2"], worker_env) for r in range(2)], tmp_path, 90)
    assert host == (0, "2 True\n", "")
    assert ends == [("", "", 0), ("", "", 0)]


# An L3 program run with its ranks in worker processes (PYPTO_SIM_RANKS=process /
# --ranks=process): the host sends each chip launch to its rank's worker.

BITWISE = """
import os, sys, torch
sys.path.insert(0, sys.argv[1])
from ring_allreduce import ring_allreduce, WORLD, COLS
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

config = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=list(range(WORLD))))
torch.manual_seed(1)
rows = torch.randn(WORLD, 1, COLS)
built = ring_allreduce.compile(rows, torch.empty(WORLD, 1, COLS), config=config)
outs = {}
for mode in ("thread", "process"):
    os.environ["PYPTO_SIM_RANKS"] = mode
    totals = torch.full((WORLD, 1, COLS), float("nan"))
    built(rows, totals)
    outs[mode] = totals
print(torch.equal(outs["thread"].view(torch.int32), outs["process"].view(torch.int32)),
      bool(torch.isfinite(outs["process"]).all()))
"""


def test_ranks_in_processes_give_the_same_bits_as_ranks_in_threads(python3, tmp_path):
    (tmp_path / "bitwise.py").write_text(BITWISE)
    proc = python3("bitwise.py", SAMPLES)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "True True\n", "")


def test_a_sample_with_ranks_in_processes_from_the_command_line(host):
    proc = host("--ranks=process", f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim", "-d", "0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'totals' PASS  shape=(4, 1, 512) dtype=torch.float32" in proc.stdout


STUCK = """
import torch
import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig


@pl.jit.incore
def wait_forever(x: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
                 sig: pld.DistributedTensor[[1, 1], pl.INT32]):
    pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    return pl.store(pl.load(x, [0, 0], [1, 64]), [0, 0], y)


@pl.jit
def chip(x: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
         sig: pld.DistributedTensor[[1, 1], pl.INT32]):
    return wait_forever(x, y, sig)


@pl.jit.host
def host(xs: pl.Tensor[[2, 1, 64], pl.FP32], ys: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):
    buf = pld.alloc_window_buffer(4)
    for r in pl.range(pld.world_size()):
        sig = pld.window(buf, [1, 1], dtype=pl.INT32)
        chip(xs[r], ys[r], sig, device=r)


def golden(v):
    v["ys"][:] = v["xs"]


run(fn=host, specs=[TensorSpec("xs", [2, 1, 64], torch.float32, init_value=torch.randn),
                    TensorSpec("ys", [2, 1, 64], torch.float32)],
    golden_fn=golden,
    config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1])))
"""


def worker_of_rank(host_pid, rank):
    """The pid of the host's worker child started with --rank `rank`, or None."""
    for task in os.listdir(f"/proc/{host_pid}/task"):
        with open(f"/proc/{host_pid}/task/{task}/children") as f:
            for child in f.read().split():
                with open(f"/proc/{child}/cmdline") as c:
                    if f"--rank\0{rank}\0" in c.read():
                        return int(child)
    return None


def test_a_killed_worker_fails_the_run_by_name_within_seconds(tmp_path):
    """Both ranks wait for a signal nobody sends; rank 1's worker is killed while it waits."""
    (tmp_path / "stuck.py").write_text(STUCK)
    env = clean_env(tmp_path, PYPTO_SIM_RANKS="process", PYPTO_SIM_WAIT_TIMEOUT=600)
    host = subprocess.Popen([str(HOST_BIN), "stuck.py"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        victim = survivor = None
        while time.monotonic() < deadline and not (victim and survivor):
            victim, survivor = worker_of_rank(host.pid, 1), worker_of_rank(host.pid, 0)
            time.sleep(0.1)
        assert victim and survivor, "the workers did not start"
        time.sleep(3)  # joined, and rank 1 waiting
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        out, err = host.communicate(timeout=60)
        assert time.monotonic() - killed < 15
    finally:
        host.kill()
    assert host.returncode == 1
    assert "[RUN] runtime failed" in out
    # Killed while it waits (the usual case): "its worker process ended: ...; on rank 1
    # (device 1)"; on a machine slow enough that it was still joining, the start names it.
    assert f"rank 1 (pid {victim} on this machine) was killed by signal 9 (SIGKILL)" in err.splitlines()[-1], err
    assert not os.path.exists(f"/proc/{survivor}")  # the other worker is gone too


def dfx_sample(tmp_path, ranks, keys):
    """samples/ring_allreduce.py with DFX keys, run with its ranks on `ranks`; returns the
    process and the run's dfx_outputs directory."""
    script = tmp_path / ranks / "dfx.py"
    script.parent.mkdir()
    script.write_text(open(f"{SAMPLES}/ring_allreduce.py").read().replace(
        "config=RunConfig(platform=args.platform, distributed_config=DistributedConfig(device_ids=devices)),",
        f"config=RunConfig(platform=args.platform, distributed_config=DistributedConfig(device_ids=devices), {keys}),"))
    proc = subprocess.run([str(HOST_BIN), f"--ranks={ranks}", str(script), "-p", "a2a3sim", "-d", "2"],
                          cwd=script.parent, env=clean_env(script.parent), capture_output=True, text=True, timeout=120)
    outputs = list(script.parent.glob("build_output/*/dfx_outputs"))
    return proc, outputs[0] if outputs else None


def test_the_swimlane_of_ranks_in_processes_is_the_swimlane_of_ranks_in_threads(tmp_path):
    # Each worker records its rank's tasks and sends them back; the host puts them on its clock.
    runs = {ranks: dfx_sample(tmp_path, ranks, "enable_chip_swimlane=True, enable_scope_stats=True")
            for ranks in ("thread", "process")}
    for ranks, (proc, _) in runs.items():
        assert proc.returncode == 0, ranks + proc.stdout + proc.stderr
    files = {ranks: sorted(p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file())
             for ranks, (_, d) in runs.items()}
    assert files["process"] == files["thread"]
    assert "rank3/d0/chip_swimlane_records.json" in files["process"]

    def tasks(ranks, rank):
        doc = json.loads((runs[ranks][1] / f"rank{rank}/d0/chip_swimlane_records.json").read_text())
        return doc["tasks"]

    for rank in range(4):
        (ours,), (theirs,) = tasks("process", rank), tasks("thread", rank)
        same = ("task_id", "func_name", "device", "source", "depth", "device_memory_bytes")
        assert {k: ours[k] for k in same} == {k: theirs[k] for k in same}
        assert ours["device"] == 2 + rank and 0 <= ours["start_us"] < ours["end_us"]
    merged = json.loads((runs["process"][1] / "merged_swimlane_ring_allreduce.json").read_text())
    slices = [e for e in merged["traceEvents"] if e["ph"] == "X"]
    assert sorted(e["pid"] for e in slices) == [2, 3, 4, 5]


def test_the_task_graph_of_ranks_in_processes_is_refused_by_name(tmp_path):
    proc, _ = dfx_sample(tmp_path, "process", "enable_dep_gen=True")
    assert proc.returncode == 1
    assert proc.stderr.rstrip().endswith(
        "the task graph, the argument dump and the PMU counts of an L3 program's chip launches are recorded only "
        "with its ranks in this process: unset PYPTO_SIM_RANKS=process for a run with dep_gen, enable_dump_args or "
        "a PMU key (rank workers record the swimlane and the scope statistics only)")


def test_a_run_whose_ranks_are_on_another_host(tmp_path, two_namespaces):
    """`pypto-golden --ranks=process` with MASTER_ADDR / MASTER_PORT: the host serves its rank
    store there and waits for the sample's four workers, started by hand in the other
    namespace as on a second machine; the run passes as with the ranks beside it."""
    host_ns, host_if = two_namespaces["host"]
    work_ns, work_if = two_namespaces["worker"]
    worker_env = clean_env(tmp_path, GLOO_SOCKET_IFNAME=work_if, MASTER_ADDR="10.231.0.1", MASTER_PORT=29632,
                           WORLD_SIZE=4)
    (status, out, err), ends = host_and_workers(
        ["ip", "netns", "exec", host_ns, str(HOST_BIN), "--ranks=process", f"{SAMPLES}/ring_allreduce.py", "-p",
         "a2a3sim"], clean_env(tmp_path, MASTER_ADDR="10.231.0.1", MASTER_PORT=29632, GLOO_SOCKET_IFNAME=host_if),
        [(["ip", "netns", "exec", work_ns, str(HOST_BIN), "--worker"], {**worker_env, "RANK": str(r)})
         for r in range(4)], tmp_path, 120)
    assert status == 0, out + err
    assert "[RUN]   'totals' PASS  shape=(4, 1, 512) dtype=torch.float32" in out
    assert ends == [("", "", 0)] * 4


ORDERING = """
import torch
import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, exit_on_failure, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

ROUNDS, ROWS, COLS = 8, 64, 256


@pl.jit.incore
def step(x: pl.Tensor[[ROUNDS * ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROUNDS * ROWS, COLS], pl.FP32]],
         inbox: pld.DistributedTensor[[ROUNDS * ROWS, COLS], pl.FP32],
         arrived: pld.DistributedTensor[[ROUNDS, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
    if me == 0:
        # Each round: the data, then its signal. The signal must never be seen first.
        for k in pl.range(ROUNDS):
            pld.tile.remote_store(pl.load(x, [k * ROWS, 0], [ROWS, COLS]), inbox, 1, [k * ROWS, 0])
            pld.system.notify(arrived, peer=1, offsets=[k, 0], value=1, op=pld.NotifyOp.AtomicAdd)
            y = pl.store(pl.load(x, [k * ROWS, 0], [ROWS, COLS]), [k * ROWS, 0], y)
    else:
        for k in pl.range(ROUNDS):
            pld.system.wait(arrived, offsets=[k, 0], expected=1, cmp=pld.WaitCmp.Ge)
            y = pl.store(pl.load(inbox, [k * ROWS, 0], [ROWS, COLS]), [k * ROWS, 0], y)
    return y


@pl.jit
def chip(x: pl.Tensor[[ROUNDS * ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROUNDS * ROWS, COLS], pl.FP32]],
         inbox: pld.DistributedTensor[[ROUNDS * ROWS, COLS], pl.FP32],
         arrived: pld.DistributedTensor[[ROUNDS, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
    return step(x, y, inbox, arrived, me)


@pl.jit.host
def host(xs: pl.Tensor[[2, ROUNDS * ROWS, COLS], pl.FP32], ys: pl.Out[pl.Tensor[[2, ROUNDS * ROWS, COLS], pl.FP32]]):
    inbox_buf = pld.alloc_window_buffer([ROUNDS * ROWS, COLS], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer(ROUNDS * 4)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [ROUNDS * ROWS, COLS], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [ROUNDS, 1], dtype=pl.INT32)
        chip(xs[r], ys[r], inbox, arrived, r, device=r)


def golden(v):
    v["ys"][0] = v["xs"][0]
    v["ys"][1] = v["xs"][0]  # rank 1 received every round of rank 0's data


exit_on_failure(run(fn=host, specs=[TensorSpec("xs", [2, ROUNDS * ROWS, COLS], torch.float32, init_value=torch.randn),
                                    TensorSpec("ys", [2, ROUNDS * ROWS, COLS], torch.float32)],
                    golden_fn=golden, rtol=0, atol=0,
                    config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))))
"""


def passes_in_processes(host, tmp_path, script):
    """Runs `script` (text) with its ranks in worker processes; it must pass. Returns stdout."""
    (tmp_path / "script.py").write_text(script)
    proc = host("--ranks=process", "script.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_a_signal_sent_after_data_is_never_seen_before_the_data(host, tmp_path):
    assert "[RUN]   'ys' PASS" in passes_in_processes(host, tmp_path, ORDERING)


KEPT_RESIDENT = """
import torch

import pypto.language as pl
import pypto.language.distributed as pld
from golden import ScalarSpec, TensorSpec, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

WORLD = 2
SWAP = 0  # 1: in dispatches 2, 3, 6, 7, ... each rank counts in its peer's shard
SEEN = None  # "stacked": seen is a resident too, so every region of a launch stays on its rank


@pl.jit.incore
def count_step(count: pl.InOut[pl.Tensor[[1, 8], pl.INT32]], seen: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
               step: pl.Scalar[pl.INT32]):
    # The shard has counted every earlier dispatch: a row of `seen` past its one row otherwise.
    n = pl.read(count, [0, 0])
    now = pl.load(count, [0, 0], [1, 8])
    seen = pl.store(now, [n - step, 0], seen)
    count = pl.store(pl.add(now, 1), [0, 0], count)
    return count, seen


@pl.jit
def count_chip(count: pl.InOut[pl.Tensor[[1, 8], pl.INT32]], seen: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
               step: pl.Scalar[pl.INT32]):
    return count_step(count, seen, step)


@pl.jit.host
def counting(count: pl.InOut[pl.Tensor[[WORLD, 1, 8], pl.INT32]], seen: pl.Out[pl.Tensor[[WORLD, 1, 8], pl.INT32]],
             step: pl.Scalar[pl.INT32]):
    for r in pl.range(pld.world_size()):
        count_chip(count[(r + step // 2 * SWAP) % WORLD], seen[r], step, device=r)


def golden(v):
    v["seen"][:] = v["count"]
    v["count"] += 1


result = run(fn=counting, specs=[TensorSpec("count", [WORLD, 1, 8], torch.int32, resident="stacked"),
                                 TensorSpec("seen", [WORLD, 1, 8], torch.int32, resident=SEEN),
                                 ScalarSpec("step", torch.int32, 0, compile_runtime=True, benchmark_step=1)],
             golden_fn=golden, rtol=0, atol=0,
             config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1])))
raise SystemExit(0 if result.passed else 1)
"""


@pytest.mark.parametrize("ranks", ["thread", "process"])
@pytest.mark.parametrize("swap,seen", [(0, None), (1, None), (0, "stacked")],
                         ids=["same-shard", "peer-shard", "all-kept"])
def test_a_resident_kept_by_its_rank_keeps_every_dispatchs_writes(host, tmp_path, ranks, swap, seen):
    # Each dispatch counts in its rank's shard of a resident, and a shard that missed a count
    # stores out of bounds. With ranks in workers a shard stays on its rank from dispatch 1
    # on (no bytes travel); when another rank takes it (peer-shard: dispatch 2), its bytes
    # come back from the rank that kept it first. all-kept: every region of a launch stays
    # on its rank, so from dispatch 2 on a launch starts without the host's Data message,
    # taking the shard its rank's launch before kept.
    script = KEPT_RESIDENT.replace("SWAP = 0", f"SWAP = {swap}").replace("SEEN = None", f"SEEN = {seen!r}")
    (tmp_path / "kept.py").write_text(script)
    env = clean_env(tmp_path, PYPTO_SIM_RANKS=ranks, PYPTO_BENCH="1", PYPTO_BENCH_ROUNDS="5",
                    PYPTO_BENCH_WARMUP="1")
    proc = host("kept.py", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'count' PASS  shape=(2, 1, 8) dtype=torch.int32" in proc.stdout
    assert "[RUN]   host_us (5 rounds)" in proc.stdout


PUT_THEN_CHANGE = """
import torch
import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, exit_on_failure, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

ROWS, COLS = 1024, 1024  # 4 MiB: a put this large goes from the kernel's own bytes


@pl.jit.incore
def step(x: pl.Tensor[[ROWS, COLS], pl.FP32], z: pl.Tensor[[ROWS, COLS], pl.FP32],
         y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], inbox: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
         arrived: pld.DistributedTensor[[1, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
    if me == 0:
        # The put must carry y as it was when put, not as it is right after.
        y[:, :] = x
        pld.tensor.put(inbox, 1, y, [0, 0])
        y[:, :] = z
        pld.system.notify(arrived, peer=1, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    else:
        pld.system.wait(arrived, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        y[:, :] = inbox
    return y


@pl.jit
def chip(x: pl.Tensor[[ROWS, COLS], pl.FP32], z: pl.Tensor[[ROWS, COLS], pl.FP32],
         y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], inbox: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
         arrived: pld.DistributedTensor[[1, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
    return step(x, z, y, inbox, arrived, me)


@pl.jit.host
def host(xs: pl.Tensor[[2, ROWS, COLS], pl.FP32], zs: pl.Tensor[[2, ROWS, COLS], pl.FP32],
         ys: pl.Out[pl.Tensor[[2, ROWS, COLS], pl.FP32]]):
    inbox_buf = pld.alloc_window_buffer([ROWS, COLS], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer(4)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [ROWS, COLS], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [1, 1], dtype=pl.INT32)
        chip(xs[r], zs[r], ys[r], inbox, arrived, r, device=r)


def golden(v):
    v["ys"][0] = v["zs"][0]
    v["ys"][1] = v["xs"][0]


exit_on_failure(run(fn=host, specs=[TensorSpec("xs", [2, ROWS, COLS], torch.float32, init_value=torch.randn),
                                    TensorSpec("zs", [2, ROWS, COLS], torch.float32, init_value=torch.randn),
                                    TensorSpec("ys", [2, ROWS, COLS], torch.float32)],
                    golden_fn=golden, rtol=0, atol=0,
                    config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))))
"""


def test_a_large_put_carries_its_source_as_it_was_when_put(host, tmp_path):
    # 4 MiB go from the kernel's own bytes, not a copy: the kernel changes them right after
    # the put, so the put must be out first (it fails 3 of 3 when it is not waited for).
    out = passes_in_processes(host, tmp_path, PUT_THEN_CHANGE)
    assert "[RUN]   'ys' PASS  shape=(2, 1024, 1024) dtype=torch.float32" in out


SHARED_OUTPUT = """
import torch
import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N, ROWS, COLS = 2, 128, 32


@pl.jit.incore
def write_mine(x: pl.Tensor[[ROWS, COLS], pl.FP32], cols: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
               rows: pl.Out[pl.Tensor[[N, COLS], pl.FP32]], me: pl.Scalar[pl.INT32]):
    cols = pl.store(pl.mul(pl.load(x, [0, me], [ROWS, 1]), 2.0), [0, me], cols)
    rows = pl.store(pl.add(pl.load(x, [me, 0], [1, COLS]), 1.0), [me, 0], rows)
    return cols, rows


@pl.jit
def chip(x: pl.Tensor[[ROWS, COLS], pl.FP32], cols: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
         rows: pl.Out[pl.Tensor[[N, COLS], pl.FP32]], me: pl.Scalar[pl.INT32]):
    return write_mine(x, cols, rows, me)


@pl.jit.host
def host(x: pl.Tensor[[ROWS, COLS], pl.FP32], cols: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
         rows: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        chip(x, cols, rows, r, device=r)


def golden(v):
    v["cols"][:] = v["x"][:, :N] * 2.0
    v["rows"][:] = v["x"][:N] + 1.0


result = run(fn=host, specs=[TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
                             TensorSpec("cols", [ROWS, N], torch.float32),
                             TensorSpec("rows", [N, COLS], torch.float32)],
             golden_fn=golden, rtol=0, atol=0,
             config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1])))
raise SystemExit(0 if result.passed else 1)
"""


def test_ranks_writing_parts_of_one_host_tensor_keep_each_others_parts(host, tmp_path):
    # Each rank writes every other element of `cols` (more runs than are sent as runs: a
    # mask comes back) and one row of `rows` (one run); neither may undo the other's.
    out = passes_in_processes(host, tmp_path, SHARED_OUTPUT)
    assert "[RUN]   'cols' PASS  shape=(128, 2) dtype=torch.float32" in out
    assert "[RUN]   'rows' PASS  shape=(2, 32) dtype=torch.float32" in out


def test_the_memory_guard_counts_the_workers_and_guards_a_worker_on_its_own(host, tmp_path):
    # The host (~250 MiB here) is under the size, with its two workers (~150 MiB each of
    # their own; the pages of the libraries they share are counted with the host) it is
    # over: the run stops with one message that says how much the workers hold.
    (tmp_path / "stuck.py").write_text(STUCK)
    proc = host("--ranks=process", "stuck.py", env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="400M"))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert re.fullmatch(r"pypto-golden: out of memory: the run holds \d+\.\d MiB \(\d+\.\d MiB of it in its 2 "
                        r"child processes\), more than PYPTO_GOLDEN_MEMORY_GUARD=400\.0 MiB; stopped \(exit status "
                        r"3\)", proc.stderr.splitlines()[-1]), proc.stderr
    # A worker on another machine guards its own memory there.
    worker = [str(HOST_BIN), "--worker", "--store", "127.0.0.1:9", "--rank", "0", "--world-size", "1"]
    proc = subprocess.run(worker, capture_output=True, text=True, timeout=60,
                          env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="1M"))
    assert proc.returncode == 3
    assert re.fullmatch(r"pypto-golden --worker: out of memory: the run holds \d+\.\d MiB, more than "
                        r"PYPTO_GOLDEN_MEMORY_GUARD=1\.0 MiB; stopped \(exit status 3\)\n", proc.stderr), proc.stderr
    proc = subprocess.run(worker, capture_output=True, text=True, timeout=60,
                          env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="lots"))
    assert (proc.returncode, proc.stderr) == (2, "pypto-golden --worker: PYPTO_GOLDEN_MEMORY_GUARD must be 'off' or a "
                                                 "positive byte count, optionally with a K, M, G or T suffix (e.g. "
                                                 "16G), got 'lots'\n")


SLOW_DATA = """
import torch
import pypto.language as pl
import pypto.language.distributed as pld
from golden import TensorSpec, exit_on_failure, run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

ROWS, COLS = 32 * 1024, 1024  # 128 MiB of fp32 per rank


@pl.jit.incore
def step(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
         sig: pld.DistributedTensor[[1, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
    if me == 1:
        pld.system.notify(sig, peer=0, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    else:
        pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        pld.system.notify(sig, peer=0, offsets=[0, 0], value=0, op=pld.NotifyOp.Set)
    return pl.store(pl.load(x, [0, 0], [1, COLS]), [0, 0], y)


@pl.jit
def chip(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
         sig: pld.DistributedTensor[[1, 1], pl.INT32], me: pl.Scalar[pl.INT32]):
    return step(x, y, sig, me)


@pl.jit.host
def host(xs: pl.Tensor[[2, ROWS, COLS], pl.FP32], ys: pl.Out[pl.Tensor[[2, 1, COLS], pl.FP32]]):
    buf = pld.alloc_window_buffer(4)
    for r in pl.range(pld.world_size()):
        sig = pld.window(buf, [1, 1], dtype=pl.INT32)
        chip(xs[r], ys[r], sig, r, device=r)


def golden(v):
    v["ys"][:] = v["xs"][:, :1]


exit_on_failure(run(fn=host, specs=[TensorSpec("xs", [2, ROWS, COLS], torch.float32, init_value=torch.randn),
                                    TensorSpec("ys", [2, 1, COLS], torch.float32)],
                    golden_fn=golden, rtol=0, atol=0,
                    config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))))
"""


def test_a_wait_does_not_time_out_while_a_peers_launch_data_is_on_its_way(host, tmp_path):
    # Rank 0 gets its 128 MiB first and waits for rank 1, whose own 128 MiB take longer to
    # arrive than the wait's 20 ms: the wait's clock stands still until they are out.
    # Sent, not mapped from the host's memory (which takes no time).
    (tmp_path / "slow_data.py").write_text(SLOW_DATA)
    proc = host("--ranks=process", "slow_data.py",
                env=clean_env(tmp_path, PYPTO_SIM_WAIT_TIMEOUT="0.02", PYPTO_SIM_SHARE_HOST_MEMORY="off"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'ys' PASS  shape=(2, 1, 1024) dtype=torch.float32" in proc.stdout


def test_workers_on_this_machine_map_the_hosts_large_inputs_instead_of_copying_them(host, tmp_path):
    # Each rank reads one row of its 512 MiB of xs. The host holds xs (1 GiB) and ~250 MiB
    # of its own, each worker ~200 MiB of its own: ~1.6 GiB in all when the workers map
    # their part of the host's memory, ~2.4 GiB when each receives a copy of it. 2 GiB
    # between: the mapped run passes under it, the copying one is stopped by the guard.
    (tmp_path / "big.py").write_text(SLOW_DATA.replace("ROWS, COLS = 32 * 1024, 1024  # 128 MiB",
                                                       "ROWS, COLS = 128 * 1024, 1024  # 512 MiB"))
    env = clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="2G")
    proc = host("--ranks=process", "big.py", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'ys' PASS  shape=(2, 1, 1024) dtype=torch.float32" in proc.stdout
    proc = host("--ranks=process", "big.py", env={**env, "PYPTO_SIM_SHARE_HOST_MEMORY": "off"})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    # (A worker may not be counted yet, or any more, when the guard looks.)
    assert re.fullmatch(r"pypto-golden: out of memory: the run holds 2\.\d GiB \(\d+\.\d [MG]iB of it in its "
                        r"(1 child process|2 child processes)\), more than PYPTO_GOLDEN_MEMORY_GUARD=2\.0 GiB; "
                        r"stopped \(exit status 3\)",
                        proc.stderr.splitlines()[-1]), proc.stderr
    proc = host("--ranks=process", f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim",
                env={**env, "PYPTO_SIM_SHARE_HOST_MEMORY": "maybe"})
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == ("RuntimeError: PYPTO_SIM_SHARE_HOST_MEMORY must be 'on' or 'off', "
                                            "got 'maybe'")


# --rank-hosts FILE: the host starts its workers on the machines the file names, through the
# launcher (ssh; PYPTO_SIM_RANK_LAUNCHER), and this machine's directly.

def stand_in_for_ssh(tmp_path, status=None):
    """A launcher that logs the machine it is asked for and runs the rest of its command
    here, or fails as ssh does for a machine it cannot resolve."""
    script = tmp_path / ("fake-ssh" if status is None else "failing-ssh")
    tail = 'shift\nexec "$@"\n' if status is None else f'echo "ssh: Could not resolve hostname $1" >&2\nexit {status}\n'
    script.write_text(f'#!/bin/sh\necho "$1" >> {tmp_path / "machines.log"}\n{tail}')
    script.chmod(0o755)
    return f"{script} {{host}}"


def test_rank_hosts_start_each_machines_workers_through_the_launcher(host, tmp_path):
    (tmp_path / "hosts.txt").write_text("# the sample's four ranks\nnode-b slots=2  # ranks 0 and 1\nlocalhost\n"
                                        "node-c\n")
    env = clean_env(tmp_path, PYPTO_SIM_RANK_LAUNCHER=stand_in_for_ssh(tmp_path))
    proc = host("--rank-hosts", "hosts.txt", f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'totals' PASS  shape=(4, 1, 512) dtype=torch.float32" in proc.stdout
    assert (tmp_path / "machines.log").read_text() == "node-b\nnode-b\nnode-c\n"


def test_rank_hosts_name_a_launcher_that_fails_and_too_few_slots(host, tmp_path):
    (tmp_path / "hosts.txt").write_text("localhost slots=3\nnode-b\n")
    env = clean_env(tmp_path, PYPTO_SIM_RANK_LAUNCHER=stand_in_for_ssh(tmp_path, status=255))
    proc = host("--rank-hosts", "hosts.txt", f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim", env=env)
    assert proc.returncode == 1
    assert "ssh: Could not resolve hostname node-b\n" in proc.stderr
    assert re.search(r"rank 3 \(on node-b, through `\S+failing-ssh node-b`, pid \d+ on this machine\) exited with "
                     r"status 255", proc.stdout + proc.stderr), proc.stdout + proc.stderr
    (tmp_path / "hosts.txt").write_text("localhost slots=2\n")
    proc = host("--rank-hosts", "hosts.txt", f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim", env=env)
    assert proc.returncode == 1
    assert (f"the program runs 4 ranks, but {tmp_path / 'hosts.txt'} has slots for 2: give its machines more "
            "slots=N, or list more machines") in proc.stdout + proc.stderr


def test_a_bad_rank_hosts_file_stops_the_run_before_the_script(host, tmp_path):
    (tmp_path / "hosts.txt").write_text("node-b slots=two\n")
    proc = host("--rank-hosts", "hosts.txt", f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2, "", "pypto-golden: --rank-hosts: hosts.txt, line 1: slots must be a positive integer (the ranks node-b "
               "runs), got 'two'\n")


def test_rank_hosts_in_another_namespace_through_ip_netns(tmp_path, two_namespaces):
    """The launcher `ip netns exec {host}` starts the sample's four workers in the other
    namespace, as ssh would on a second machine. No GLOO_SOCKET_IFNAME anywhere: each side's
    group traffic leaves by the address it reaches the store from."""
    host_ns, _ = two_namespaces["host"]
    work_ns, _ = two_namespaces["worker"]
    (tmp_path / "hosts.txt").write_text(f"{work_ns} slots=4\n")
    env = clean_env(tmp_path, MASTER_ADDR="10.231.0.1", MASTER_PORT=29633,
                    PYPTO_SIM_RANK_LAUNCHER="ip netns exec {host}")
    env.pop("GLOO_SOCKET_IFNAME", None)
    proc = subprocess.run(["ip", "netns", "exec", host_ns, str(HOST_BIN), "--rank-hosts", "hosts.txt",
                           f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'totals' PASS  shape=(4, 1, 512) dtype=torch.float32" in proc.stdout


def test_rank_hosts_from_the_environment_under_python3(python3, tmp_path):
    """PYPTO_SIM_RANK_HOSTS alone puts the ranks in workers on its machines; with
    PYPTO_SIM_RANKS=thread it is a contradiction, named."""
    (tmp_path / "hosts.txt").write_text("node-b slots=4\n")
    env = clean_env(tmp_path, PYPTO_SIM_RANK_HOSTS=tmp_path / "hosts.txt",
                    PYPTO_SIM_RANK_LAUNCHER=stand_in_for_ssh(tmp_path))
    env.pop("PYPTO_SIM_RANKS", None)
    proc = python3(f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "machines.log").read_text() == "node-b\n" * 4
    proc = python3(f"{SAMPLES}/ring_allreduce.py", "-p", "a2a3sim", env={**env, "PYPTO_SIM_RANKS": "thread"})
    assert proc.returncode == 1
    assert (f"PYPTO_SIM_RANK_HOSTS={tmp_path / 'hosts.txt'} starts the ranks in worker processes, but "
            "PYPTO_SIM_RANKS=thread keeps them in this one: unset one of them") in proc.stdout + proc.stderr
