"""RunConfig's DFX keys on the simulator: enable_chip_swimlane writes the swimlane records
and a Chrome trace-event file (Perfetto, chrome://tracing), enable_scope_stats per-scope
statistics, all under <work_dir>/dfx_outputs/; with the keys off nothing is written."""

import json
import re
from collections import defaultdict
from pathlib import Path

from conftest import clean_env
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
    start and a non-negative duration, and on one track slices either nested or disjoint."""
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
    slices = check_trace(json.loads((dfx / "merged_swimlane_add_kernel.json").read_text()))
    assert len(slices) == 4 and {s["name"] for s in slices} == {"add"}
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
