"""RunConfig's DFX keys on the simulator: enable_chip_swimlane writes the swimlane records
and a Chrome trace-event file (Perfetto, chrome://tracing), enable_dep_gen the task graph
(deps.json, deps.dot), enable_scope_stats per-scope statistics, all under
<work_dir>/dfx_outputs/; with the keys off nothing is written."""

import json
import re
from collections import defaultdict
from pathlib import Path

from conftest import SAMPLES, clean_env
from kernel_scripts import write_kernel_script

DFX_MAIN = """
finish(run(fn=add_kernel, specs=specs(), golden_fn=golden,
           config={"platform": "a2a3sim", "enable_chip_swimlane": LEVEL, "enable_scope_stats": STATS}))
"""


def run_with(directory, host, level, stats):
    directory.mkdir(exist_ok=True)
    script = write_kernel_script(directory, main=DFX_MAIN.replace("LEVEL", str(level)).replace("STATS", str(stats)))
    proc = host(script, env=clean_env(directory))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (build,) = (directory / "build_output").iterdir()
    return proc, build


def check_trace(trace):
    """The trace-event rules a viewer relies on: named tracks for every slice, slices with a
    start and a non-negative duration, on one track slices either nested or disjoint, and
    every flow arrow one start ("s") inside a slice of its track and one end ("f", bound to
    the enclosing slice) where a slice of its track starts, no earlier than its start; a
    device-memory counter ("C") per device with tasks, in time order, never negative."""
    events = trace["traceEvents"]
    named_processes = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    named_threads = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    by_track = defaultdict(list)
    for e in slices:
        assert e["ts"] >= 0 and e["dur"] >= 0 and e["name"]
        assert e["pid"] in named_processes and (e["pid"], e["tid"]) in named_threads
        by_track[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_track.values():
        open_ends = []
        for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            assert not open_ends or end <= open_ends[-1] + 1e-3, "slices overlap without nesting"
            open_ends.append(end)
    flows = defaultdict(dict)
    for e in events:
        if e["ph"] in ("s", "f"):
            assert e["ph"] not in flows[e["id"]], "a flow id starts or ends twice"
            flows[e["id"]][e["ph"]] = e
    for ends in flows.values():
        assert set(ends) == {"s", "f"}, "a flow without its start or its end"
        start, end = ends["s"], ends["f"]
        assert start["ts"] <= end["ts"] and end["bp"] == "e"
        assert any((x["pid"], x["tid"]) == (start["pid"], start["tid"]) and x["ts"] <= start["ts"] <= x["ts"] + x["dur"]
                   for x in slices)
        assert any((x["pid"], x["tid"]) == (end["pid"], end["tid"]) and x["ts"] == end["ts"] for x in slices)
    counters = defaultdict(list)
    for e in events:
        if e["ph"] == "C":
            assert e["pid"] in named_processes and e["name"] == "device memory"
            (value,) = e["args"].values()
            assert isinstance(value, int) and value >= 0
            counters[e["pid"]].append((e["ts"], value))
    assert set(counters) == {e["pid"] for e in slices}
    for pid, samples in counters.items():  # one at each task's start and end
        assert [ts for ts, _ in samples] == sorted(ts for ts, _ in samples)
        assert len(samples) == 2 * sum(1 for e in slices if e["pid"] == pid)
    return slices


def test_swimlane_and_scope_stats_of_a_run(tmp_path, host):
    proc, build = run_with(tmp_path, host, 4, True)
    dfx = build / "dfx_outputs"
    assert re.findall(r"^\[RUN\]   dfx: (.*)$", proc.stdout, re.M) == [
        str(dfx / "chip_swimlane_records.json"), str(dfx / "merged_swimlane_add_kernel.json"),
        str(dfx / "scope_stats" / "scope_stats.jsonl")]
    records = json.loads((dfx / "chip_swimlane_records.json").read_text())
    assert (records["format"], records["kernel"], records["level"], records["platform"]) == (
        "pypto-golden-chip-swimlane", "add_kernel", 4, "a2a3sim")
    tasks = records["tasks"]
    # add_kernel: 64 rows in row blocks of 16, one region "add" each, at the kernel's line 16.
    assert len(tasks) == 4
    assert {(t["func_name"], t["source"], t["device"], t["depth"]) for t in tasks} == {("add", "kernel.py:16", 0, 0)}
    assert [t["task_id"] for t in tasks] == [0, 1, 2, 3]
    assert all(0 <= t["start_us"] <= t["end_us"] for t in tasks)
    assert [t["start_us"] for t in tasks] == sorted(t["start_us"] for t in tasks)
    trace = json.loads((dfx / "merged_swimlane_add_kernel.json").read_text())
    slices = check_trace(trace)
    assert len(slices) == 4 and {s["name"] for s in slices} == {"add"}
    # While the tasks run the device holds y alone (64 x 32 fp32, 8 KiB): x, never written,
    # stays in host memory, and each task adds straight into its window of y.
    memory = [e["args"]["bytes in use"] for e in trace["traceEvents"] if e["ph"] == "C"]
    assert memory == [8192] * 8
    assert sorted(b for t in tasks for b in t["device_memory_bytes"]) == sorted(memory)
    (stats,) = [json.loads(line) for line in (dfx / "scope_stats" / "scope_stats.jsonl").read_text().splitlines()]
    assert (stats["scope"], stats["source"], stats["count"]) == ("add", "kernel.py:16", 4)
    assert stats["min_us"] <= stats["mean_us"] <= stats["max_us"]
    assert abs(stats["total_us"] - sum(t["end_us"] - t["start_us"] for t in tasks)) < 0.01


def test_each_key_alone_and_none(tmp_path, host):
    _, build = run_with(tmp_path / "a", host, 1, False)
    assert sorted(p.name for p in (build / "dfx_outputs").iterdir()) == [
        "chip_swimlane_records.json", "merged_swimlane_add_kernel.json"]
    _, build = run_with(tmp_path / "b", host, 0, True)
    assert sorted(str(p.relative_to(build / "dfx_outputs")) for p in (build / "dfx_outputs").rglob("*.jsonl")) == [
        "scope_stats/scope_stats.jsonl"]
    assert not (build / "dfx_outputs" / "chip_swimlane_records.json").exists()
    proc, build = run_with(tmp_path / "c", host, 0, False)
    assert not (build / "dfx_outputs").exists() and "dfx:" not in proc.stdout


def test_unnamed_regions_are_named_as_pypto_outlines_them(tmp_path, host):
    script = write_kernel_script(tmp_path, main=DFX_MAIN.replace("LEVEL", "4").replace("STATS", "False"))
    script.write_text(script.read_text().replace(', name_hint="add"', ""))
    assert host(script).returncode == 0
    (build,) = (tmp_path / "build_output").iterdir()
    records = json.loads((Path(build) / "dfx_outputs" / "chip_swimlane_records.json").read_text())
    assert {t["func_name"] for t in records["tasks"]} == {"add_kernel_incore_0"}


TWO_STAGE = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit
def two_stage(
    x: pl.Tensor[[64, 32], pl.FP32],
    y: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
):
    mid = pl.create_tensor([64, 32], dtype=pl.FP32)
    for r in pl.range(0, 64, 32):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            mid[r : r + 32, :] = pl.mul(x[r : r + 32, :], 2.0)
    for r in pl.range(0, 64, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="shift"):
            t = pl.load(mid, [r, 0], [16, 32])
            pl.store(pl.add(t, 1.0), [r, 0], y)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="again"):
        y[0:8, :] = pl.add(y[0:8, :], 1.0)
    return y


def golden(values):
    values["y"][:] = values["x"] * 2.0 + 1.0
    values["y"][0:8] += 1.0


result = run(fn=two_stage, specs=[TensorSpec("x", [64, 32], torch.float32, init_value=torch.randn),
                                  TensorSpec("y", [64, 32], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True, "enable_chip_swimlane": 1})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_dep_gen_writes_the_task_graph(tmp_path, host):
    script = tmp_path / "two_stage.py"
    script.write_text(TWO_STAGE)
    proc = host(script, env=clean_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (build,) = (tmp_path / "build_output").iterdir()
    dfx = build / "dfx_outputs"
    assert re.findall(r"^\[RUN\]   dfx: (.*)$", proc.stdout, re.M) == [
        str(dfx / "chip_swimlane_records.json"), str(dfx / "merged_swimlane_two_stage.json"),
        str(dfx / "deps.json"), str(dfx / "deps.dot")]
    deps = json.loads((dfx / "deps.json").read_text())
    assert (deps["format"], deps["kernel"]) == ("pypto-golden-deps", "two_stage")
    # Parameters first, then the orchestration's tensor.
    assert [(t["name"], t["dtype"], t["shape"], t["buffer_numel"]) for t in deps["tensors"]] == [
        ("x", "FP32", [64, 32], 2048), ("y", "FP32", [64, 32], 2048), ("mid", "FP32", [64, 32], 2048)]
    tasks = deps["tasks"]
    assert [t["func_name"] for t in tasks] == ["scale"] * 2 + ["shift"] * 4 + ["again"]
    # Task 3 (shift, rows 16..32): reads mid's rows 16..32, writes y's.
    assert tasks[3]["args"] == [
        {"idx": 0, "type": "INPUT", "tensor_id": 2, "tensor": "mid", "dtype": "FP32", "shape": [16, 32],
         "start_offset": 512, "strides": [32, 1]},
        {"idx": 1, "type": "OUTPUT", "tensor_id": 1, "tensor": "y", "dtype": "FP32", "shape": [16, 32],
         "start_offset": 512, "strides": [32, 1]}]
    # Windows of one shape share their recorded dims; a new shape gets its own.
    assert [[(a["shape"], a["strides"]) for a in tasks[k]["args"]] for k in (0, 2, 6)] == [
        [([32, 32], [32, 1])] * 2, [([16, 32], [32, 1])] * 2, [([8, 32], [32, 1])] * 2]
    # Each shift reads the half of mid one scale wrote; "again" reads and writes y's first
    # rows, which shift 2 wrote (write after write); x is only read: no edge.
    assert [(e["pred"], e["succ"], e["tensor"], e["overlap"]) for e in deps["edges"]] == [
        (0, 2, "mid", "covered"), (0, 3, "mid", "covered"), (1, 4, "mid", "covered"),
        (1, 5, "mid", "covered"), (2, 6, "y", "covered")]
    dot = (dfx / "deps.dot").read_text()
    assert dot.startswith('digraph "two_stage" {\n') and dot.endswith("}\n")
    assert '  t0 [label="#0 scale\\ntwo_stage.py:14"];\n' in dot
    assert '  t2 -> t6 [label="y"];\n' in dot and dot.count(" -> ") == 5
    # The swimlane records carry the windows; the trace a flow arrow per edge.
    records = json.loads((dfx / "chip_swimlane_records.json").read_text())
    assert records["tasks"][3]["windows"] == [{k: v for k, v in a.items() if k != "idx"} for a in tasks[3]["args"]]
    trace = json.loads((dfx / "merged_swimlane_two_stage.json").read_text())
    check_trace(trace)
    flows = [e for e in trace["traceEvents"] if e.get("cat") == "dep"]
    assert sorted((e["ph"], e["id"]) for e in flows) == sorted(
        [("s", k) for k in range(5)] + [("f", k) for k in range(5)])
    starts = {e["id"]: e["ts"] for e in flows if e["ph"] == "s"}
    ends = {e["id"]: e["ts"] for e in flows if e["ph"] == "f"}
    assert all(starts[k] <= ends[k] for k in range(5))


def run_two_stage(directory, host, config):
    directory.mkdir(exist_ok=True)
    script = directory / "two_stage.py"
    script.write_text(TWO_STAGE.replace('config={"platform": "a2a3sim", "enable_dep_gen": True, '
                                        '"enable_chip_swimlane": 1}', "config=" + config))
    proc = host(script, env=clean_env(directory))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (build,) = (directory / "build_output").iterdir()
    return proc, build / "dfx_outputs"


def test_dump_args_writes_each_window_read_and_written(tmp_path, host):
    import torch

    proc, dfx = run_two_stage(tmp_path, host, '{"platform": "a2a3sim", "enable_dump_args": 2}')
    dump = dfx / "args_dump"
    assert re.findall(r"^\[RUN\]   dfx: (.*)$", proc.stdout, re.M) == [str(dump / "args_dump.json")]
    manifest = json.loads((dump / "args_dump.json").read_text())
    assert (manifest["format"], manifest["kernel"], manifest["level"]) == ("pypto-golden-args-dump", "two_stage", 2)
    records = manifest["records"]
    # 2 scale tasks (read x, write mid), 4 shift (read mid, write y), again (write y, read y).
    assert len(records) == 2 * 2 + 4 * 2 + 2
    assert sorted(p.name for p in dump.iterdir()) == sorted([r["file"] for r in records] + ["args_dump.json"])
    shift = [r for r in records if r["task_id"] == 3]
    assert [(r["idx"], r["type"], r["stage"], r["tensor"], r["shape"], r["file"]) for r in shift] == [
        (0, "INPUT", "before_dispatch", "mid", [16, 32], "task3_shift_0_in.pt"),
        (1, "OUTPUT", "after_completion", "y", [16, 32], "task3_shift_1_out.pt")]
    read = torch.load(dump / "task3_shift_0_in.pt", weights_only=True)
    written = torch.load(dump / "task3_shift_1_out.pt", weights_only=True)
    assert read.shape == (16, 32) and torch.equal(written, read + 1.0)
    x_rows = torch.load(dump / "task0_scale_0_in.pt", weights_only=True)  # x's rows 0..32
    mid_rows = torch.load(dump / "task0_scale_1_out.pt", weights_only=True)
    assert torch.equal(mid_rows, x_rows * 2.0) and torch.equal(read, mid_rows[16:32])
    # "again" read y's first rows after shift wrote them, and wrote them plus one.
    again = {r["stage"]: torch.load(dump / r["file"], weights_only=True) for r in records if r["task_id"] == 6}
    assert torch.equal(again["after_completion"], again["before_dispatch"] + 1.0)
    assert torch.equal(again["before_dispatch"], torch.load(dump / "task2_shift_1_out.pt", weights_only=True)[0:8])


def test_dump_args_levels_without_data(tmp_path, host):
    proc, dfx = run_two_stage(tmp_path / "meta", host, '{"platform": "a2a3sim", "enable_dump_args": 3}')
    dump = dfx / "args_dump"
    assert [p.name for p in dump.iterdir()] == ["args_dump.json"]
    records = json.loads((dump / "args_dump.json").read_text())["records"]
    assert len(records) == 14 and all(r["file"] is None for r in records)
    # Level 1 dumps marked tensors only; two_stage marks none.
    proc, dfx = run_two_stage(tmp_path / "partial", host, '{"platform": "a2a3sim", "enable_dump_args": 1}')
    dump = dfx / "args_dump"
    assert [p.name for p in dump.iterdir()] == ["args_dump.json"]
    assert json.loads((dump / "args_dump.json").read_text())["records"] == []
    line = ("[RUN]   dfx: enable_dump_args=1 dumps the tensors marked with pl.dump_tag or dumps=, and no task read "
            "or wrote one: nothing dumped (2 dumps every task's windows, 3 their metadata)\n")
    assert line in proc.stdout


MARKED = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit.incore
def bump(a: pl.Tensor[[64, 32], pl.FP32], b: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    b[:, :] = pl.add(a[:, :], 1.0)
    return b


@pl.jit.inline
def helper(a: pl.Tensor[[64, 32], pl.FP32], b: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    pl.dump_tag(b)
    b = bump(a, b)
    return b


@pl.jit
def marked(x: pl.Tensor[[64, 32], pl.FP32], y: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    mid = pl.create_tensor([64, 32], dtype=pl.FP32)
    pl.dump_tag(x)
    with pl.at(name_hint="scale"):
        mid[:, :] = pl.mul(x[:, :], 2.0)
    with pl.at(name_hint="shift", dumps=[mid]):
        y[:, :] = pl.add(mid[:, :], 1.0)
    pl.dump_tag(y)
    y = bump(mid, y)
    y = helper(y, y)
    with pl.at(name_hint="last"):
        y[0:8, :] = pl.add(y[0:8, :], x[0:8, :])
    return y


def golden(values):
    x, y = values["x"], values["y"]
    y[:] = x * 2.0 + 2.0
    y[0:8] += x[0:8]


result = run(fn=marked, specs=[TensorSpec("x", [64, 32], torch.float32, init_value=torch.randn),
                               TensorSpec("y", [64, 32], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dump_args": 1})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_dump_args_level_1_dumps_the_marked_tensors(tmp_path, host):
    """pl.dump_tag(t) marks t's value for every later task that reads or writes it, until t
    is rebound; dumps=[t] marks it for one task; a tag in an inline helper covers the
    helper's tasks only."""
    import torch

    script = tmp_path / "marked.py"
    script.write_text(MARKED)
    proc = host(script, env=clean_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (build,) = (tmp_path / "build_output").iterdir()
    dump = build / "dfx_outputs" / "args_dump"
    assert re.findall(r"^\[RUN\]   dfx: (.*)$", proc.stdout, re.M) == [str(dump / "args_dump.json")]
    records = json.loads((dump / "args_dump.json").read_text())["records"]
    # scale: x (tagged), not mid. shift: mid (dumps=), not y. bump: y (tagged when passed;
    # the assignment's y is a new value). The helper's bump: y, tagged in the helper.
    # last: x still tagged; y rebound since, not.
    assert [(r["task_id"], r["func_name"], r["idx"], r["type"], r["tensor"], r["shape"], r["file"])
            for r in records] == [
        (0, "scale", 0, "INPUT", "x", [64, 32], "task0_scale_0_in.pt"),
        (1, "shift", 0, "INPUT", "mid", [64, 32], "task1_shift_0_in.pt"),
        (2, "bump", 1, "OUTPUT", "y", [64, 32], "task2_bump_1_out.pt"),
        (3, "bump_1", 0, "INPUT", "y", [64, 32], "task3_bump_1_0_in.pt"),
        (3, "bump_1", 1, "OUTPUT", "y", [64, 32], "task3_bump_1_1_out.pt"),
        (4, "last", 1, "INPUT", "x", [8, 32], "task4_last_1_in.pt")]
    assert sorted(p.name for p in dump.iterdir()) == sorted([r["file"] for r in records] + ["args_dump.json"])
    load = {r["file"]: torch.load(dump / r["file"], weights_only=True) for r in records}
    x = load["task0_scale_0_in.pt"]
    assert torch.equal(load["task1_shift_0_in.pt"], x * 2.0)
    assert torch.equal(load["task2_bump_1_out.pt"], x * 2.0 + 1.0)
    assert torch.equal(load["task3_bump_1_0_in.pt"], x * 2.0 + 1.0)
    assert torch.equal(load["task3_bump_1_1_out.pt"], load["task3_bump_1_0_in.pt"] + 1.0)
    assert torch.equal(load["task4_last_1_in.pt"], x[0:8])


def test_pmu_counts_what_the_simulator_measures(tmp_path, host):
    proc, dfx = run_two_stage(tmp_path, host, '{"platform": "a2a3sim", "enable_pmu": 2}')
    assert re.findall(r"^\[RUN\]   dfx: (.*)$", proc.stdout, re.M) == [str(dfx / "pmu.csv")]
    header, *rows = [line.split(",") for line in (dfx / "pmu.csv").read_text().splitlines()]
    assert header == ["thread_id", "core_id", "task_id", "func_name", "sim_duration_ns", "gm_read_bytes",
                      "gm_write_bytes", "event_type"]
    # scale: 32 rows of x read, of mid written; shift: 16 rows each; again: 8 rows of y.
    assert [(r[2], r[3], r[5], r[6], r[7]) for r in rows] == (
        [(str(k), "scale", "4096", "4096", "2") for k in range(2)]
        + [(str(k), "shift", "2048", "2048", "2") for k in range(2, 6)] + [("6", "again", "1024", "1024", "2")])
    assert all(r[0] == r[1] and int(r[4]) > 0 for r in rows)


L3_DFX = '''
import sys
sys.path.insert(0, SAMPLES)
import ring_allreduce as sample
from golden import run
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

result = run(fn=sample.ring_allreduce, specs=sample.build_specs(), golden_fn=sample.golden_ring_allreduce,
             config=RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1, 2, 3]),
                              enable_chip_swimlane=1, enable_dep_gen=True))
raise SystemExit(0 if result.passed else 1)
'''


def test_an_l3_program_writes_each_chip_launch_in_rank_and_dispatch_folders(tmp_path, host):
    script = tmp_path / "l3_dfx.py"
    script.write_text(L3_DFX.replace("SAMPLES", repr(str(SAMPLES))))
    proc = host(script, env=clean_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (build,) = (tmp_path / "build_output").iterdir()
    dfx = build / "dfx_outputs"
    per_launch = ["chip_swimlane_records.json", "merged_swimlane_ring_chip.json", "deps.json", "deps.dot"]
    assert re.findall(r"^\[RUN\]   dfx: (.*)$", proc.stdout, re.M) == [
        str(dfx / f"rank{r}" / "d0" / name) for r in range(4) for name in per_launch] + [
        str(dfx / "merged_swimlane_ring_allreduce.json")]
    for r in range(4):
        records = json.loads((dfx / f"rank{r}" / "d0" / "chip_swimlane_records.json").read_text())
        assert records["kernel"] == "ring_chip" and records["tasks"]
        assert {t["device"] for t in records["tasks"]} == {r}
        assert [t["task_id"] for t in records["tasks"]] == list(range(len(records["tasks"])))
    trace = json.loads((dfx / "merged_swimlane_ring_allreduce.json").read_text())
    check_trace(trace)
    assert {e["pid"] for e in trace["traceEvents"] if e["ph"] == "X"} == {0, 1, 2, 3}


def run_script_deps(directory, host, text):
    """Runs the script `text` (which asks for enable_dep_gen); its build directory and its
    deps.json."""
    script = directory / "kernel.py"
    script.write_text(text)
    proc = host(script, env=clean_env(directory))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (build,) = (directory / "build_output").iterdir()
    return build, json.loads((build / "dfx_outputs" / "deps.json").read_text())


MADE_THEN_READ = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit
def made_then_read(x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    for r in pl.range(0, 32, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
            t = pl.add(x[r : r + 16, :], 1.0)
            t[0:8, :] = pl.add(t[0:8, :], 0.0)  # windows of the task's own tile: not recorded
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            y[r : r + 16, :] = pl.add(t[:, :], 1.0)
    return y


def golden(values):
    values["y"][:] = values["x"] + 2.0


result = run(fn=made_then_read, specs=[TensorSpec("x", [32, 32], torch.float32, init_value=torch.randn),
                                       TensorSpec("y", [32, 32], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_a_tile_one_task_made_and_hands_on_is_its_output_and_the_next_tasks_input(tmp_path, host):
    """A task's own tile is not recorded while it works on it; a tile it hands on (bound to a
    variable read after the region, as PyPTO's outliner makes an output of the region's
    InCore function) is recorded as a whole window it wrote, so the task that reads it
    depends on it. (A task starts knowing the storages the task before it saw when it starts
    with the same variables: not so at the second `use`, whose `t` the second `make` saw as
    its own.)"""
    _, deps = run_script_deps(tmp_path, host, MADE_THEN_READ)
    assert [(t["name"], t["shape"]) for t in deps["tensors"]] == [
        ("x", [32, 32]), ("y", [32, 32]), ("t", [16, 32]), ("t", [16, 32])]
    assert [(t["func_name"], [(a["type"], a["tensor_id"], a["start_offset"]) for a in t["args"]])
            for t in deps["tasks"]] == [
        ("make", [("INPUT", 0, 0), ("OUTPUT", 2, 0)]), ("use", [("INPUT", 2, 0), ("OUTPUT", 1, 0)]),
        ("make", [("INPUT", 0, 512), ("OUTPUT", 3, 0)]), ("use", [("INPUT", 3, 0), ("OUTPUT", 1, 512)])]
    assert [(e["pred"], e["succ"], e["tensor_id"], e["overlap"]) for e in deps["edges"]] == [
        (0, 1, 2, "covered"), (2, 3, 3, "covered")]


SPMD_BLOCKS = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit
def spmd_blocks(x: pl.Tensor[[64, 16], pl.FP32], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
                z: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
    for b in pl.spmd(4, name_hint="rows_spmd"):
        y[b * 16 : b * 16 + 16, :] = pl.add(x[b * 16 : b * 16 + 16, :], 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="after"):
        y[0:16, :] = pl.add(y[0:16, :], 1.0)
    for b in pl.spmd(2):
        t = pl.add(x[b * 16 : b * 16 + 16, :], 2.0)
        pl.system.syncall()
        z[b * 16 : b * 16 + 16, :] = pl.add(t[:, :], 0.0)
    return y, z


def golden(values):
    values["y"][:] = values["x"] + 1.0
    values["y"][0:16] += 1.0
    values["z"][:] = values["x"][0:32] + 2.0


result = run(fn=spmd_blocks, specs=[TensorSpec("x", [64, 16], torch.float32, init_value=torch.randn),
                                    TensorSpec("y", [64, 16], torch.float32),
                                    TensorSpec("z", [32, 16], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True, "enable_chip_swimlane": 1})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_each_block_of_a_pl_spmd_is_a_task(tmp_path, host):
    """A pl.spmd loop's blocks each run the loop body as an InCore task, named as PyPTO's
    parser names it (the name_hint less "_spmd"; unnamed, by the outliner's numbering, which
    counts it); a body split by pl.system.syncall is a task per part, the later parts named
    as the first. The swimlane has a record per block and part; the graph, as PyPTO's, a
    node per launch (block_num), whose arguments hold its blocks' windows."""
    build, deps = run_script_deps(tmp_path, host, SPMD_BLOCKS)
    tensors = [t["name"] for t in deps["tensors"]]
    assert [(t["func_name"], t["kind"], t["block_num"]) for t in deps["tasks"]] == [
        ("rows", "spmd", 4), ("after", "task", 1), ("spmd_blocks_incore_2", "spmd", 2)]
    args = [[(a["type"], tensors[a["tensor_id"]], a["start_offset"], a["shape"]) for a in t["args"]]
            for t in deps["tasks"]]
    assert args[0] == [("INPUT", "x", 0, [64, 16]), ("OUTPUT", "y", 0, [64, 16])]
    assert args[1] == [("INPUT", "y", 0, [16, 16]), ("OUTPUT", "y", 0, [16, 16])]
    # each block's t is a tile of its own, made by its first part and read by its second
    assert sorted(a[:2] for a in args[2]) == [("INPUT", "t"), ("INPUT", "t"), ("INPUT", "x"), ("OUTPUT", "t"),
                                              ("OUTPUT", "t"), ("OUTPUT", "z")]
    assert ("INPUT", "x", 0, [32, 16]) in args[2] and ("OUTPUT", "z", 0, [32, 16]) in args[2]
    assert [(e["pred"], e["succ"], tensors[e["tensor_id"]]) for e in deps["edges"]] == [(0, 1, "y")]
    records = json.loads((build / "dfx_outputs" / "chip_swimlane_records.json").read_text())
    assert sorted(t["func_name"] for t in records["tasks"]) == sorted(
        ["rows"] * 4 + ["after"] + ["spmd_blocks_incore_2"] * 4)


EXPLICIT_DEPS = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run

AT = pl.Level.CORE_GROUP


@pl.jit
def explicit(x: pl.Tensor[[64, 16], pl.FP32], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
             z: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
    tids = pl.array.create(4, pl.TASK_ID)
    for i in pl.range(4):
        with pl.at(level=AT, name_hint="fill") as t:
            y[i * 16 : i * 16 + 16, :] = pl.add(x[i * 16 : i * 16 + 16, :], 1.0)
        tids[i] = t
    with pl.at(level=AT, name_hint="second", deps=[tids[1]]) as s:
        z[0:16, :] = pl.add(x[0:16, :], 2.0)
    barrier = pl.system.task_dummy(deps=[s, tids[3]])
    nothing = pl.system.task_dummy(deps=[None])
    with pl.manual_scope():
        with pl.at(level=AT, name_hint="manual", deps=[barrier, nothing]):
            z[16:32, :] = pl.add(y[16:32, :], 0.0)
    for b in pl.parallel(2):
        with pl.at(level=AT, name_hint="par") as p:
            z[32 + b * 16 : 48 + b * 16, :] = pl.add(x[32 + b * 16 : 48 + b * 16, :], 3.0)
    with pl.spmd(2, name_hint="tail", deps=[p]) as sp:
        k = pl.get_block_idx()
        y[k * 16 : k * 16 + 16, :] = pl.add(y[k * 16 : k * 16 + 16, :], 1.0)
    scratch = pl.create_tensor([16, 16], dtype=pl.FP32, manual_dep=True)
    with pl.at(level=AT, name_hint="put") as put:
        scratch[:, :] = pl.add(x[0:16, :], 1.0)
    with pl.at(level=AT, name_hint="get", deps=[put]):
        z[0:16, :] = pl.add(scratch[:, :], 1.0)
    return y, z


def golden(values):
    x = values["x"]
    values["y"][:] = x + 1.0
    values["y"][0:32] += 1.0
    values["z"][0:16] = x[0:16] + 2.0
    values["z"][16:32] = x[16:32] + 1.0
    values["z"][32:64] = x[32:64] + 3.0


result = run(fn=explicit, specs=[TensorSpec("x", [64, 16], torch.float32, init_value=torch.randn),
                                 TensorSpec("y", [64, 16], torch.float32),
                                 TensorSpec("z", [64, 16], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True, "enable_chip_swimlane": 1})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_explicit_deps_are_edges_of_the_task_they_name(tmp_path, host):
    """deps= adds an edge from the one execution of a task its id names (each task binds a
    fresh id when the graph is recorded: the ids in a TASK_ID array tell the iterations
    apart); a pl.system.task_dummy barrier is a node that gathers its deps, one whose deps
    name no task submits nothing; a task id rebound in a pl.parallel loop means every
    iteration's task; a task in a pl.manual_scope, and a tensor made with manual_dep=True,
    get no edges from their windows. The edges compose as PyPTO's fan-in does: the windows'
    and the explicit ones."""
    build, deps = run_script_deps(tmp_path, host, EXPLICIT_DEPS)
    tensors = [t["name"] for t in deps["tensors"]]
    assert [(t["func_name"], t["kind"], t["block_num"], t["scope"]) for t in deps["tasks"]] == [
        ("fill", "task", 1, "auto")] * 4 + [
        ("second", "task", 1, "auto"), ("task_dummy", "dummy", 1, "auto"), ("manual", "task", 1, "manual"),
        ("par", "task", 1, "auto"), ("par", "task", 1, "auto"), ("tail", "spmd", 2, "auto"),
        ("put", "task", 1, "auto"), ("get", "task", 1, "auto")]
    assert [t["name"] for t in deps["tensors"] if t["manual_dep"]] == ["scratch"]
    assert [t["source"] for t in deps["tasks"]][4:7] == ["kernel.py:17", "kernel.py:19", "kernel.py:22"]
    edges = [(e["pred"], e["succ"], e["source"], tensors[e["tensor_id"]] if "tensor_id" in e else None)
             for e in deps["edges"]]
    assert edges == [(1, 4, "explicit", None), (3, 5, "explicit", None), (4, 5, "explicit", None),
                     (5, 6, "explicit", None), (0, 9, "tensormap", "y"), (1, 9, "tensormap", "y"),
                     (7, 9, "explicit", None), (8, 9, "explicit", None), (4, 11, "tensormap", "z"),
                     (10, 11, "explicit", None)]
    assert all(e["arg"] == -1 for e in deps["edges"] if e["source"] == "explicit")
    dot = (build / "dfx_outputs" / "deps.dot").read_text()
    assert 't1 -> t4 [label="deps=", style=bold];' in dot
    assert 't9 [label="#9 tail x2\\nkernel.py:27"];' in dot
    # the trace's arrows: the windows' and a deps= one into the first block to start
    trace = json.loads((build / "dfx_outputs" / "merged_swimlane_explicit.json").read_text())
    check_trace(trace)
    assert sum(1 for e in trace["traceEvents"] if e["ph"] == "s" and e["name"] == "deps=") == 4


def test_task_ids_run_the_same_without_the_graph(tmp_path, host):
    """Without enable_dep_gen nothing records a task: ids are their sites' and the kernel
    runs as it does with the graph."""
    script = tmp_path / "kernel.py"
    script.write_text(EXPLICIT_DEPS.replace('"enable_dep_gen": True, "enable_chip_swimlane": 1', ""))
    proc = host(script, env=clean_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN] PASS" in proc.stdout and "dfx" not in proc.stdout


WHOLE_OPERANDS = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit
def whole(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
          z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    a = pl.array.create(2, pl.INT32)
    a[0] = 3
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
        t = pl.add(x[:, :], 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        y[:, :] = t
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        n = a[0]
        z[:, :] = pl.mul(y, 2.0)
        pl.write(z, [1, 2], pl.read(x, [3, 4]))
    return y, z


def golden(values):
    values["y"][:] = values["x"] + 1.0
    values["z"][:] = values["y"] * 2.0
    values["z"][1, 2] = values["x"][3, 4]


result = run(fn=whole, specs=[TensorSpec("x", [16, 16], torch.float32, init_value=torch.randn),
                              TensorSpec("y", [16, 16], torch.float32),
                              TensorSpec("z", [16, 16], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_a_variable_handed_whole_to_an_op_or_a_store_is_read_whole(tmp_path, host):
    """`y[...] = t` and `pl.mul(y, 2.0)` read all of t and y; pl.read / pl.write touch one
    element; an array is not a tensor of the task graph."""
    _, deps = run_script_deps(tmp_path, host, WHOLE_OPERANDS)
    tensors = [t["name"] for t in deps["tensors"]]
    assert tensors == ["x", "y", "z", "t"]
    assert [(t["func_name"], [(a["type"], tensors[a["tensor_id"]], a["start_offset"], a["shape"]) for a in t["args"]])
            for t in deps["tasks"]] == [
        ("make", [("INPUT", "x", 0, [16, 16]), ("OUTPUT", "t", 0, [16, 16])]),
        ("copy", [("INPUT", "t", 0, [16, 16]), ("OUTPUT", "y", 0, [16, 16])]),
        ("scale", [("INPUT", "y", 0, [16, 16]), ("OUTPUT", "z", 0, [16, 16]), ("INPUT", "x", 52, []),
                   ("OUTPUT", "z", 18, [])])]
    assert [(e["pred"], e["succ"], tensors[e["tensor_id"]]) for e in deps["edges"]] == [
        (0, 1, "t"), (1, 2, "y")]


ASSEMBLED = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit
def assembled(x: pl.Tensor[[32, 16], pl.FP32], y: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
    out = pl.create_tensor([32, 16], dtype=pl.FP32)
    for r in pl.range(0, 32, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
            t = pl.add(x[r : r + 16, :], 1.0)
        out = pl.assemble(out, t, [r, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
        y[:, :] = pl.add(out[:, :], 1.0)
    return y


def golden(values):
    values["y"][:] = values["x"] + 2.0


result = run(fn=assembled, specs=[TensorSpec("x", [32, 16], torch.float32, init_value=torch.randn),
                                  TensorSpec("y", [32, 16], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_an_orchestration_assemble_makes_the_tile_a_window_of_its_target(tmp_path, host):
    """pl.assemble(out, t, offset) in the orchestration makes t a view of out's window in
    PyPTO: the task that made t wrote that window, and a task that reads it depends on it."""
    _, deps = run_script_deps(tmp_path, host, ASSEMBLED)
    tensors = [t["name"] for t in deps["tensors"]]
    assert [(t["func_name"], [(a["type"], tensors[a["tensor_id"]], a["start_offset"], a["shape"])
                              for a in t["args"]]) for t in deps["tasks"]] == [
        ("make", [("INPUT", "x", 0, [16, 16]), ("OUTPUT", "out", 0, [16, 16])]),
        ("make", [("INPUT", "x", 256, [16, 16]), ("OUTPUT", "out", 256, [16, 16])]),
        ("use", [("INPUT", "out", 0, [32, 16]), ("OUTPUT", "y", 0, [32, 16])])]
    assert [(e["pred"], e["succ"], tensors[e["tensor_id"]], e["overlap"]) for e in deps["edges"]] == [
        (0, 2, "out", "other"), (1, 2, "out", "other")]

NO_DEP = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run

AT = pl.Level.CORE_GROUP


@pl.jit
def nodep(x: pl.Tensor[[32, 16], pl.FP32], y: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
          z: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
    with pl.at(level=AT, name_hint="write") as w:
        y[:, :] = pl.add(x[:, :], 1.0)
    with pl.at(level=AT, name_hint="blind", no_dep_args=[y], deps=[w]):
        z[0:16, :] = pl.add(y[0:16, :], 1.0)
    with pl.at(level=AT, name_hint="seen"):
        z[16:32, :] = pl.add(y[16:32, :], 1.0)
    return y, z


def golden(values):
    values["y"][:] = values["x"] + 1.0
    values["z"][:] = values["x"] + 2.0


result = run(fn=nodep, specs=[TensorSpec("x", [32, 16], torch.float32, init_value=torch.randn),
                              TensorSpec("y", [32, 16], torch.float32),
                              TensorSpec("z", [32, 16], torch.float32)],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


NO_DEP_CALLS = '''
import torch
import pypto.language as pl
from golden import TensorSpec, run

AT = pl.Level.CORE_GROUP


@pl.jit.incore
def bump(src: pl.Tensor[[32, 16], pl.FP32], dst: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
    r0 = pl.get_block_idx() * 16
    t = pl.load(src, [r0, 0], [16, 16])
    return pl.store(pl.add(t, 1.0), [r0, 0], dst)


@pl.jit.incore
def bump_all(src: pl.Tensor[[32, 16], pl.FP32], dst: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
    return pl.store(pl.add(pl.load(src, [0, 0], [32, 16]), 1.0), [0, 0], dst)


@pl.jit
def nodep_calls(x: pl.Tensor[[32, 16], pl.FP32], y: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
                z: pl.Out[pl.Tensor[[32, 16], pl.FP32]], w: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
                v: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
    with pl.at(level=AT, name_hint="write") as made:
        y[:, :] = pl.add(x[:, :], 1.0)
    z, _ = pl.spmd_submit(self.bump, pl.no_dep(y), z, core_num=2, deps=[made])  # noqa: F821
    w = bump_all(pl.no_dep(y), w)
    v = bump_all(y, v)
    return y, z, w, v


def golden(values):
    values["y"][:] = values["x"] + 1.0
    for name in ("z", "w", "v"):
        values[name][:] = values["x"] + 2.0


result = run(fn=nodep_calls, specs=[TensorSpec("x", [32, 16], torch.float32, init_value=torch.randn)] +
             [TensorSpec(n, [32, 16], torch.float32) for n in "yzwv"],
             golden_fn=golden, config={"platform": "a2a3sim", "enable_dep_gen": True})
print(result)
raise SystemExit(0 if result.passed else 1)
'''


def test_a_no_dep_argument_of_a_kernel_call_leaves_that_tensor_out_of_its_edges(tmp_path, host):
    """`pl.no_dep(y)` at a call site (pl.spmd_submit or a plain InCore call): that task's
    windows of y give it no edge, as PyPTO's NoDep argument; the spmd launch is still ordered
    by its deps=, and a call passing y plainly depends on y's writer."""
    build, deps = run_script_deps(tmp_path, host, NO_DEP_CALLS)
    assert [t["func_name"] for t in deps["tasks"]] == ["write", "bump", "bump_all", "bump_all_1"]
    assert [(e["pred"], e["succ"], e["source"]) for e in deps["edges"]] == [
        (0, 1, "explicit"), (0, 3, "tensormap")]
    program = json.loads((build / "sim_program.json").read_text())
    slots = program["functions"][0]["slots"]

    def tasks(stmts):
        for st in stmts:
            if st.get("s") == "at":
                yield st["name"], [slots[k] for k in st.get("no_dep", [])]
            for key in ("body", "orelse"):
                yield from tasks(st.get(key, []))

    assert list(tasks(program["functions"][0]["body"])) == [
        ("write", []), ("bump", ["y"]), ("bump_all", ["y"]), ("bump_all", [])]


def test_no_dep_args_leave_a_tensor_out_of_that_tasks_edges(tmp_path, host):
    """`no_dep_args=[y]` on a pl.at: that task's windows of y give it no edge (its deps= order
    it instead); another task reading y still depends on y's writer."""
    _, deps = run_script_deps(tmp_path, host, NO_DEP)
    assert [(e["pred"], e["succ"], e["source"]) for e in deps["edges"]] == [
        (0, 1, "explicit"), (0, 2, "tensormap")]
    assert [t["func_name"] for t in deps["tasks"]] == ["write", "blind", "seen"]
