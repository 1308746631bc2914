"""save_data / golden_data / runtime_dir / compile_only: the replay workflow, for real."""

import json
import os
import random
import re
import signal
import subprocess
import time

import pytest
import torch

from conftest import HOST_BIN, SAMPLES, clean_env, stage_lines
from kernel_scripts import write_kernel_script

HELLO = SAMPLES / "hello_world.py"


def builds(tmp_path):
    root = tmp_path / "build_output"
    return sorted(root.iterdir()) if root.exists() else []


@pytest.fixture
def saved(host, tmp_path):
    """A passing hello_world run with --save-data; returns its work_dir."""
    proc = host("--save-data", HELLO, "-p", "a2a3sim")
    assert proc.returncode == 0, proc.stderr
    (work,) = builds(tmp_path)
    return work


def test_save_data_says_where_it_saved(host, tmp_path):
    proc = host("--save-data", HELLO, "-p", "a2a3sim")
    assert proc.returncode == 0, proc.stderr
    (work,) = builds(tmp_path)
    lines = proc.stdout.splitlines()
    # Each in its stage, as a replay's "cache hit" lines are.
    assert lines[lines.index("[RUN] generate inputs ...") + 1] == f"[RUN]   saved: {work / 'data' / 'in'}"
    assert lines[lines.index("[RUN] compute golden ...") + 1] == f"[RUN]   saved: {work / 'data' / 'out'}"


TWO_SAVED_RUNS = """
for _ in range(2):
    finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, config={"platform": "a2a3sim"}, save_data=True))
"""


def test_runs_of_one_build_save_side_by_side(host, tmp_path):
    """A second run of a cached compile saves into data_1, never over the first's data."""
    script = write_kernel_script(tmp_path, main=TWO_SAVED_RUNS)
    proc = host(script, env=clean_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (work,) = builds(tmp_path)  # one compile, two runs
    assert re.findall(r"^\[RUN\]   saved: (.*)$", proc.stdout, re.M) == [
        str(work / "data" / "in"), str(work / "data" / "out"), str(work / "data_1" / "in"),
        str(work / "data_1" / "out")]
    x0 = torch.load(work / "data/in/x.pt", weights_only=True)
    x1 = torch.load(work / "data_1/in/x.pt", weights_only=True)
    assert not torch.equal(x0, x1)  # each run's own random inputs
    assert torch.equal(torch.load(work / "data_1/out/y.pt", weights_only=True), x1 + 2.0)


def test_save_data_writes_loadable_inputs_and_goldens(saved):
    files = sorted(str(p.relative_to(saved / "data")) for p in (saved / "data").rglob("*"))
    assert files == ["in", "in/a.pt", "in/x.pt", "out", "out/y.pt"]
    x = torch.load(saved / "data/in/x.pt", weights_only=True)
    a = torch.load(saved / "data/in/a.pt", weights_only=True)
    y = torch.load(saved / "data/out/y.pt", weights_only=True)
    assert a.dim() == 0 and a.dtype == torch.float32 and a.item() == 1.5
    assert x.shape == (1024, 512) and torch.equal(y, x + a)
    assert not list(saved.rglob(".*.tmp"))  # no temporary file left behind


def test_round_trip_golden_data_then_runtime_dir_then_both(host, saved, tmp_path):
    data = saved / "data"
    replay = host("--golden-data", data, HELLO, "-p", "a2a3sim")
    assert replay.returncode == 0, replay.stderr
    lines = stage_lines(replay.stdout)
    assert f"[RUN]   cache hit: {data / 'in'}" in lines and f"[RUN]   cache hit: {data / 'out'}" in lines

    before = builds(tmp_path)
    again = host("--runtime-dir", saved, HELLO, "-p", "a5sim")  # the platform can be overridden
    assert again.returncode == 0, again.stderr
    assert f"[RUN] runtime_only: skipping compile, using {saved}" in again.stdout
    assert builds(tmp_path) == before  # nothing was compiled

    both = host("--runtime-dir", saved, "--golden-data", data, HELLO)
    assert both.returncode == 0, both.stderr
    assert "[RUN]   'y' PASS  shape=(1024, 512) dtype=torch.float32" in both.stdout
    assert builds(tmp_path) == before


def test_relative_paths_are_taken_from_where_the_command_runs(host, saved, tmp_path):
    rel = os.path.relpath(saved, tmp_path)
    proc = host("--runtime-dir", rel, "--golden-data", os.path.join(rel, "data"), HELLO, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_replay_detects_a_changed_kernel_output(host, saved):
    torch.save(torch.zeros(1024, 512), saved / "data/out/y.pt")  # Python-written files load natively
    proc = host("--golden-data", saved / "data", HELLO)
    assert proc.returncode == 1
    assert "Output(s) does not match golden: ['y']" in proc.stdout


def test_compile_only(host, tmp_path):
    proc = host("--compile-only", HELLO)
    assert proc.returncode == 0
    lines = stage_lines(proc.stdout)
    assert [line.split(" (")[0] for line in lines] == ["[RUN] compile ...", "[RUN] compile done", "[RUN] PASS"]
    (work,) = builds(tmp_path)
    assert (work / "compiled_meta.json").is_file() and not (work / "data").exists()


def test_compile_only_with_runtime_dir_fails(host, saved):
    proc = host("--compile-only", "--runtime-dir", saved, HELLO)
    assert proc.returncode == 1
    assert proc.stdout.strip().splitlines()[-1] == "runtime_dir is incompatible with compile_only"


def last(proc):
    return proc.stdout.strip().splitlines()[-1]


def test_golden_data_that_does_not_exist(host, tmp_path):
    proc = host("--golden-data", tmp_path / "nowhere", HELLO)
    assert proc.returncode == 1
    assert last(proc) == f"golden_data does not exist: {tmp_path / 'nowhere'}"


def test_every_missing_file_is_listed(host, saved):
    (saved / "data/in/a.pt").unlink()
    (saved / "data/out/y.pt").unlink()
    proc = host("--golden-data", saved / "data", HELLO)
    assert proc.returncode == 1
    assert "[RUN] generate inputs failed" in proc.stdout
    assert last(proc) == (
        f"golden_data is missing files: ['{saved}/data/in/a.pt', '{saved}/data/out/y.pt']"
    )


@pytest.mark.parametrize(
    "name, content, problem",
    [
        ("in/x.pt", torch.zeros(1024, 256),
         "holds a torch.float32 tensor of shape (1024, 256), but spec 'x' is torch.float32 of shape (1024, 512)"),
        ("out/y.pt", torch.zeros(1024, 512, dtype=torch.float16),
         "holds a torch.float16 tensor of shape (1024, 512), but spec 'y' is torch.float32 of shape (1024, 512)"),
        ("in/a.pt", torch.tensor([1.5, 2.5]), "must contain a 0-dim torch.Tensor, got (2,)"),
        ("in/a.pt", torch.tensor(1.5, dtype=torch.float64), "dtype mismatch: spec=torch.float32 cache=torch.float64"),
        ("in/x.pt", [1, 2], "must contain a torch.Tensor, got list"),
    ],
    ids=["shape", "dtype", "scalar-not-0-dim", "scalar-dtype", "not-a-tensor"],
)
def test_snapshot_files_are_checked_against_the_specs(host, saved, name, content, problem):
    torch.save(content, saved / "data" / name)
    proc = host("--golden-data", saved / "data", HELLO)
    assert proc.returncode == 1
    assert last(proc) == f"golden_data: {saved / 'data' / name} {problem}"


def test_truncated_snapshot_file(host, saved):
    path = saved / "data/in/x.pt"
    path.write_bytes(path.read_bytes()[:4096])
    proc = host("--golden-data", saved / "data", HELLO)
    assert proc.returncode == 1
    assert last(proc).startswith(f"golden_data: {path} is not a readable torch tensor file (")


def test_runtime_dir_that_does_not_exist(host, tmp_path):
    proc = host("--runtime-dir", tmp_path / "gone", HELLO)
    assert proc.returncode == 1
    assert last(proc) == f"runtime_dir does not exist: {tmp_path / 'gone'}"


def test_runtime_dir_that_is_not_a_build(host, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = host("--runtime-dir", empty, HELLO)
    assert proc.returncode == 1
    assert last(proc) == (
        f"runtime_dir is not a usable build: {empty}/compiled_meta.json not found: the directory is not a PyPTO "
        "build (no compiled_meta.json); recompile the kernel to refresh the build"
    )


def test_runtime_dir_with_a_malformed_sidecar(host, saved):
    meta = json.loads((saved / "compiled_meta.json").read_text())
    meta["params"][0]["shape"] = "wide"
    (saved / "compiled_meta.json").write_text(json.dumps(meta))
    proc = host("--runtime-dir", saved, HELLO)
    assert proc.returncode == 1
    assert last(proc) == (
        f"runtime_dir is not a usable build: {saved}/compiled_meta.json: params[0].shape must be a list of "
        "integers or null, got string 'wide'; recompile the kernel to refresh the build"
    )


def test_runtime_dir_with_a_program_from_another_version(host, saved):
    program = json.loads((saved / "sim_program.json").read_text())
    program["version"] = 99
    (saved / "sim_program.json").write_text(json.dumps(program))
    proc = host("--runtime-dir", saved, HELLO)
    assert proc.returncode == 1
    assert last(proc) == (
        f"runtime_dir is not a usable build: {saved}/sim_program.json: program version 99 is not supported (this "
        "simulator runs version 1); rebuild the kernel with this pypto-golden"
    )


def test_runtime_dir_of_another_kernel_is_a_spec_mismatch(host, tmp_path, saved):
    script = write_kernel_script(tmp_path)
    proc = host("--runtime-dir", saved, script)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "golden.SpecError: TensorSpec 'x' does not match parameter 'x' of kernel 'add_kernel': shape (64, 32)"
    )


BIG_SAVE = """
finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, save_data=True))
"""


def test_sigkill_never_leaves_a_half_written_file(tmp_path):
    # Big tensors make each save take a while; kill runs at random moments and load every
    # .pt and .json left behind: each must be complete (or absent).
    script = write_kernel_script(tmp_path, main=BIG_SAVE)
    script.write_text(script.read_text().replace("ROWS, COLS = 64, 32", "ROWS, COLS = 4096, 2048"))
    rng = random.Random(1234)
    checked = 0
    for attempt in range(10):
        proc = subprocess.Popen([str(HOST_BIN), str(script)], cwd=tmp_path, env=clean_env(tmp_path),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in proc.stdout:  # the saves happen in these two stages
            if line.startswith("[RUN] generate inputs ..."):
                break
        time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    for path in (tmp_path / "build_output").rglob("*"):
        if path.suffix == ".pt":
            torch.load(path, weights_only=True)
            checked += 1
        elif path.suffix == ".json":
            json.loads(path.read_text())
            checked += 1
    assert checked > 10  # the loop really produced files to check
