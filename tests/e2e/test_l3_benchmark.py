"""The L3 benchmark under the real executable: resident specs stay on the cards, windows
persist between launches, stepped scalars advance per physical dispatch, and the report
has the L3 lines; each broken rule ends in one message."""

import json
import re

import pytest

from conftest import SAMPLES, bench_lines, clean_env
from test_l3_programs import l3_script, line_with

NUMBER = r"[0-9]+\.[0-9]"
STATS = f"min={NUMBER} median={NUMBER} mean={NUMBER} max={NUMBER}"


def kv_sample(tmp_path, **replace):
    """samples/kv_cache_append.py with some of its text replaced."""
    text = (SAMPLES / "kv_cache_append.py").read_text()
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "kv_cache_append.py"
    path.write_text(text)
    return path


def bench_env(tmp_path, rounds, warmup, **extra):
    return clean_env(tmp_path, PYPTO_BENCH="1", PYPTO_BENCH_ROUNDS=rounds, PYPTO_BENCH_WARMUP=warmup, **extra)


def test_a_kernel_that_resets_its_signals_gets_no_warning(host, tmp_path):
    proc = host(SAMPLES / "ring_allreduce.py", "-p", "a2a3sim", "-d", "0", env=bench_env(tmp_path, 2, 1))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stdout
    # Without benchmark mode there is one launch, and nothing to warn about.
    plain = host(l3_script(tmp_path))
    assert plain.returncode == 0 and "warning" not in plain.stdout


def test_a_resident_run_reports_every_rank_and_the_l3_detail_line(host, tmp_path):
    report = tmp_path / "bench.json"
    env = bench_env(tmp_path, 3, 0, PYPTO_BENCH_RAW="1", PYPTO_BENCH_JSON=report)
    proc = host(SAMPLES / "kv_cache_append.py", "-p", "a2a3sim", "-d", "0", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    samples = rf"\[{NUMBER}, {NUMBER}, {NUMBER}\]"
    expected = [
        re.escape("[RUN]   effective_us unavailable: sim platform has no device timing"),
        rf"\[RUN\]   host_us \(3 rounds\) {STATS} stdev={NUMBER}",
        rf"\[RUN\]     rank 0 \(device 0\): host_us {STATS}",
        rf"\[RUN\]     rank 1 \(device 1\): host_us {STATS}",
        # Warmup 0 is raised to 1: the validation dispatch is the first warmup.
        re.escape("[RUN]   raw samples: ranks=2 rounds=3 warmup=1"),
        rf"\[RUN\]     raw n=3 host_us={samples}",
        rf"\[RUN\]     rank 0 raw n=3 host_us={samples}",
        rf"\[RUN\]     rank 1 raw n=3 host_us={samples}",
        r"\[RUN\] benchmark kernel=kv_cache_append l3_resident=1 rounds=3 ranks=2 host_mean_us=[0-9]+",
    ]
    lines = bench_lines(proc.stdout)
    assert len(lines) == len(expected), lines
    for pattern, line in zip(expected, lines):
        assert re.fullmatch(pattern, line), line
    # One line per run for CI's grep of effective_us.
    assert sum("effective_us" in line for line in proc.stdout.splitlines()) == 1
    assert "[RUN]   'cache' PASS  shape=(2, 160, 64) dtype=torch.float32" in proc.stdout
    doc = json.loads(report.read_text())
    assert (doc["level"], doc["rounds"], doc["warmup"]) == ("l3_resident", 3, 1)
    assert [(r["rank"], r["device"], len(r["host_us"]["samples"])) for r in doc["ranks"]] == [(0, 0, 3), (1, 1, 3)]


@pytest.mark.parametrize("warmup", [1, 3])
def test_a_stepped_position_advances_with_every_physical_dispatch(host, tmp_path, warmup):
    # A cache of 20 rows: pos is 16 at dispatch 0 (validation), so dispatch 4 writes row 20,
    # whether dispatch 4 is a warmup or a timed round.
    script = kv_sample(tmp_path, **{"CAPACITY, HEAD = 160, 64": "CAPACITY, HEAD = 20, 64"})
    proc = host(script, "-p", "a2a3sim", "-d", "0", env=bench_env(tmp_path, 10, warmup))
    assert proc.returncode == 1
    line = line_with(script, "cache = pl.store(row, [pos, 0], cache)")
    assert re.search(
        r"^golden.KernelError: %s:%d: pl.store: the write is outside the target: axis 0 gets \[20:21\] but the "
        r"extent is 20 \(target shape \(20, 64\), source shape \(1, 64\)\) \(r=(0|1)\); on rank \1 \(device \1\); "
        r"in benchmark dispatch 4 \(pos=20\)$" % (re.escape(str(script)), line), proc.stderr, re.M), proc.stderr


def test_a_stepped_scalar_that_would_leave_its_dtype(host, tmp_path):
    script = kv_sample(tmp_path, **{"torch.int32, POS": "torch.int8, 120", "pl.INT32": "pl.INT8"})
    proc = host(script, "-p", "a2a3sim", "-d", "0", env=bench_env(tmp_path, 10, 1))
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == (
        "ScalarSpec 'pos' (torch.int8, value 120, benchmark_step 1) leaves [-128, 127] by dispatch 10 of the "
        "benchmark; lower PYPTO_BENCH_ROUNDS / PYPTO_BENCH_WARMUP or the step")


@pytest.mark.parametrize("replace, rule", [
    ({', init_value=torch.randn, resident="stacked"': ", init_value=torch.randn"},
     "which needs resident specs (the L3 persistent-window benchmark); this run has none, so every launch would "
     "repeat one argument list"),
    ({"compile_runtime=True, benchmark_step=1": "benchmark_step=1"},
     "which on a @pl.jit kernel needs compile_runtime=True (otherwise the compiler may fold the initial value into "
     "the artifact)"),
], ids=["no-resident", "no-compile-runtime"])
def test_stepped_scalar_rules_on_an_l3_program(host, tmp_path, replace, rule):
    proc = host(kv_sample(tmp_path, **replace), "-p", "a2a3sim", "-d", "0", env=bench_env(tmp_path, 2, 1))
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == f"ScalarSpec 'pos' has benchmark_step, {rule}"


def test_a_run_without_residents_benchmarks_as_l3(host, tmp_path):
    proc = host(l3_script(tmp_path), env=bench_env(tmp_path, 2, 1))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The script never clears the signal it waits on.
    assert re.search(
        r"^\[RUN\]   warning: kernel 'host' ends its launch with a signal it waits on still set \(rank (0|1) "
        r"\(device (3|5)\): the signal at \[(1|0), 0\] \(window buffer 1\) holds 1\); window buffers persist "
        r"between launches \(this benchmark's, and on hardware\), so the next launch's pld.system.wait may be "
        r"satisfied by this launch's notify: reset each signal once it is consumed \(pld.system.notify\(\.\.\., "
        r"value=0, op=pld.NotifyOp.Set\)\), or wait for a per-launch count \(a stepped scalar\)$",
        proc.stdout, re.M), proc.stdout
    lines = bench_lines(proc.stdout)
    assert re.fullmatch(rf"\[RUN\]     rank 0 \(device 3\): host_us {STATS}", lines[2]), lines
    assert re.fullmatch(rf"\[RUN\]     rank 1 \(device 5\): host_us {STATS}", lines[3]), lines
    assert re.fullmatch(r"\[RUN\] benchmark kernel=host l3=1 rounds=2 ranks=2 host_mean_us=[0-9]+", lines[4]), lines


def test_windows_persist_between_the_launches_of_a_benchmark(host, tmp_path):
    # Each rank counts its own launches in a signal it never clears: 1 in the first launch,
    # 2 in the second, where waiting for exactly 1 can never succeed.
    script = l3_script(tmp_path, wait="pld.system.wait(signal, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)\n"
                                      "    pld.system.notify(signal, peer=me, offsets=[me, 0], value=1, "
                                      "op=pld.NotifyOp.AtomicAdd)\n"
                                      "    pld.system.wait(signal, offsets=[me, 0], expected=1, cmp=pld.WaitCmp.Eq)")
    proc = host(script, env=bench_env(tmp_path, 2, 1, PYPTO_SIM_WAIT_TIMEOUT="0.3"), timeout=60)
    assert proc.returncode == 1
    line = line_with(script, "cmp=pld.WaitCmp.Eq")
    assert re.search(
        r"^golden.KernelError: %s:%d: pld.system.wait: never satisfied: the signal at \[(0|1), 0\] \(window buffer "
        r"1\) is 2, expected == 1 after 0.3 s \(PYPTO_SIM_WAIT_TIMEOUT\); check the peer, offsets and value of the "
        r"pld.system.notify calls meant for it \(r=\1\); on rank \1 \(device (3|5)\); in benchmark dispatch 1$"
        % (re.escape(str(script)), line), proc.stderr, re.M), proc.stderr


@pytest.mark.parametrize("resident, devices, message", [
    ("2", "[3, 5]", "TensorSpec 'xs': resident=2 names worker 2, but the program runs on 2 device(s), workers 0..1"),
    ('"stacked"', "[3]", "TensorSpec 'xs': resident=\"stacked\" puts shard i on worker i, so its leading dim can be "
                         "at most 1 (the program runs on 1 device(s), workers 0..0), got shape (2, 1, 64)"),
], ids=["worker", "stacked"])
def test_a_resident_spec_naming_a_worker_the_program_lacks(host, tmp_path, resident, devices, message):
    script = l3_script(tmp_path)
    text = script.read_text().replace("device_ids=[3, 5]", f"device_ids={devices}")
    script.write_text(text.replace("init_value=torch.randn)", f"init_value=torch.randn, resident={resident})"))
    proc = host(script, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == f"error: {message}"


@pytest.mark.parametrize("devices, message", [
    ("[3, 3]", "DistributedConfig.device_ids must be distinct, got [3, 3]"),
    ("[-1, 5]", "DistributedConfig.device_ids must be a non-empty list of non-negative ints, got [-1, 5]"),
    ("[]", "DistributedConfig.device_ids must be a non-empty list of non-negative ints, got []"),
])
def test_device_ids_that_repeat_or_are_negative(host, tmp_path, devices, message):
    script = l3_script(tmp_path)
    script.write_text(script.read_text().replace("device_ids=[3, 5]", f"device_ids={devices}"))
    proc = host(script, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == f"ValueError: {message}"


def test_save_data_golden_data_and_runtime_dir_replay_an_l3_run(host, tmp_path):
    sample = SAMPLES / "kv_cache_append.py"
    assert host("--save-data", sample, "-p", "a2a3sim", "-d", "0").returncode == 0
    build = next((tmp_path / "build_output").iterdir())
    assert {p.name for p in build.iterdir()} >= {"compiled_meta.json", "distributed_meta.json", "data"}
    cached = host("--golden-data", build / "data", sample, "-p", "a2a3sim", "-d", "0")
    assert cached.returncode == 0, cached.stdout + cached.stderr
    assert f"[RUN]   cache hit: {build / 'data' / 'out'}" in cached.stdout
    replay = host("--runtime-dir", build, sample, "-p", "a2a3sim", "-d", "0", env=bench_env(tmp_path, 2, 1))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert ("[RUN] benchmark skipped: stepped scalar(s) 'pos' on a runtime_dir replay (the artifact's metadata "
            "cannot prove the scalar is forwarded rather than folded); recompile to benchmark it") in replay.stdout
    assert "[RUN]   'cache' PASS  shape=(2, 160, 64) dtype=torch.float32" in replay.stdout
