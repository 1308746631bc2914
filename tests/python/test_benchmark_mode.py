"""Benchmark mode (PYPTO_BENCH) through golden.run in-process: knobs, lines, stats, JSON,
stepped-scalar rules, replay skip, and validation unchanged by the timed rounds."""

import json
import re

import pytest
import torch

import pypto.language as pl
from conftest import bench_lines
from golden import BenchStats, ScalarSpec, TensorSpec, run

N = 16


@pl.jit
def accumulate(
    x: pl.Tensor[[N, N], pl.FP32],
    a: pl.Scalar[pl.FP32],
    acc: pl.InOut[pl.Tensor[[N, N], pl.FP32]],
    y: pl.Out[pl.Tensor[[N, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="acc"):
        acc[:, :] = pl.add(acc[:, :], x[:, :])
        y[:, :] = pl.add(x[:, :], a)
    return y


def specs(step=None, compile_runtime=False):
    return [
        TensorSpec("x", [N, N], torch.float32, init_value=torch.randn),
        ScalarSpec("a", torch.float32, 2.0, compile_runtime=compile_runtime, benchmark_step=step),
        TensorSpec("acc", [N, N], torch.float32, init_value=1.0),
        TensorSpec("y", [N, N], torch.float32),
    ]


def golden(v):
    v["acc"][:] = v["acc"] + v["x"]
    v["y"][:] = v["x"] + v["a"]


@pytest.fixture(autouse=True)
def clean(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    for knob in ("PYPTO_BENCH", "PYPTO_BENCH_ROUNDS", "PYPTO_BENCH_WARMUP", "PYPTO_BENCH_RAW", "PYPTO_BENCH_JSON"):
        monkeypatch.delenv(knob, raising=False)


def test_benchmark_runs_between_runtime_and_validate(monkeypatch, capsys):
    monkeypatch.setenv("PYPTO_BENCH", "1")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "7")
    monkeypatch.setenv("PYPTO_BENCH_WARMUP", "2")
    result = run(fn=accumulate, specs=specs(), golden_fn=golden)
    # The InOut accumulator was dispatched 1 + 2 + 7 times, yet validation sees the first.
    assert result.passed, result.error
    out = capsys.readouterr().out
    stages = [re.sub(r" \(.*", "", line) for line in out.splitlines() if re.match(r"\[RUN\] \w", line)]
    assert stages == ["[RUN] compile ...", "[RUN] compile done", "[RUN] generate inputs ...",
                      "[RUN] generate inputs done", "[RUN] compute golden ...", "[RUN] compute golden done",
                      "[RUN] runtime ...", "[RUN] runtime done", "[RUN] benchmark ...", "[RUN] benchmark done",
                      "[RUN] validate ...", "[RUN] validate done", "[RUN] PASS"]
    lines = bench_lines(out)
    assert lines[0] == "[RUN]   effective_us unavailable: sim platform has no device timing"
    assert re.fullmatch(r"\[RUN\]   host_us \(7 rounds\) "
                        r"min=\d+\.\d median=\d+\.\d mean=\d+\.\d max=\d+\.\d stdev=\d+\.\d", lines[1])
    assert len(lines) == 2
    assert sum("effective_us" in line for line in out.splitlines()) == 1  # the CI grep sees one line
    b = result.bench
    assert isinstance(b, BenchStats) and b.metric == "host_us" and (b.rounds, b.warmup) == (7, 2)
    assert len(b.samples) == 7 and b.min <= b.median <= b.max and b.min == min(b.samples)
    assert str(b) == lines[1][len("[RUN]   "):]


@pytest.mark.parametrize("value", ["", "0", "false", "FALSE", "No", " off "])
def test_off_values(monkeypatch, capsys, value):
    monkeypatch.setenv("PYPTO_BENCH", value)
    result = run(fn=accumulate, specs=specs(), golden_fn=golden)
    assert result.passed and result.bench is None
    assert "[RUN] benchmark" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "knob, value, line",
    [
        ("PYPTO_BENCH_ROUNDS", "abc", "[RUN]   ignoring PYPTO_BENCH_ROUNDS='abc' (want an integer >= 1); using 100"),
        ("PYPTO_BENCH_ROUNDS", "0", "[RUN]   ignoring PYPTO_BENCH_ROUNDS='0' (want an integer >= 1); using 100"),
        ("PYPTO_BENCH_WARMUP", "-1", "[RUN]   ignoring PYPTO_BENCH_WARMUP='-1' (want an integer >= 0); using 5"),
    ],
)
def test_malformed_knobs_warn_and_use_the_default(monkeypatch, capsys, knob, value, line):
    monkeypatch.setenv("PYPTO_BENCH", "yes")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "3")
    monkeypatch.setenv(knob, value)
    result = run(fn=accumulate, specs=specs(), golden_fn=golden)
    assert result.passed
    assert bench_lines(capsys.readouterr().out)[0] == line
    assert result.bench.rounds == (100 if knob == "PYPTO_BENCH_ROUNDS" else 3)
    assert result.bench.warmup == (5 if knob == "PYPTO_BENCH_WARMUP" else 5)


def test_raw_samples(monkeypatch, capsys):
    monkeypatch.setenv("PYPTO_BENCH", "1")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "3")
    monkeypatch.setenv("PYPTO_BENCH_WARMUP", "0")
    monkeypatch.setenv("PYPTO_BENCH_RAW", "1")
    result = run(fn=accumulate, specs=specs(), golden_fn=golden)
    lines = bench_lines(capsys.readouterr().out)
    assert lines[2] == "[RUN]   raw samples: rounds=3 warmup=0"
    values = ", ".join(f"{v:.1f}" for v in result.bench.samples)
    assert lines[3] == f"[RUN]     raw n=3 host_us=[{values}]"


def test_json_report(monkeypatch, tmp_path):
    path = tmp_path / "reports" / "bench.json"
    monkeypatch.setenv("PYPTO_BENCH", "1")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "4")
    monkeypatch.setenv("PYPTO_BENCH_JSON", str(path))
    result = run(fn=accumulate, specs=specs(), golden_fn=golden)
    doc = json.loads(path.read_text())
    assert doc["kernel"] == "accumulate" and doc["platform"] == "a2a3sim" and doc["effective_us"] is None
    assert (doc["rounds"], doc["warmup"]) == (4, 5)
    assert doc["host_us"]["samples"] == result.bench.samples
    assert doc["host_us"]["median"] == result.bench.median
    assert [p.name for p in path.parent.iterdir()] == ["bench.json"]  # no temporary left


@pytest.mark.parametrize(
    "kwargs, config, rule",
    [
        ({}, None, "which on a @pl.jit kernel needs compile_runtime=True (otherwise the compiler may fold the "
                   "initial value into the artifact), and which needs resident specs (the L3 persistent-window "
                   "benchmark); this run has none, so every launch would repeat one argument list"),
        ({"compile_runtime": True}, {"enable_chip_swimlane": True},
         "which cannot be combined with enable_chip_swimlane (one handle call may run several physical passes "
         "with the same argument list), and which needs resident specs (the L3 persistent-window benchmark); "
         "this run has none, so every launch would repeat one argument list"),
        ({"compile_runtime": True}, None,
         "which needs resident specs (the L3 persistent-window benchmark); this run has none, so every launch "
         "would repeat one argument list"),
    ],
    ids=["no-compile-runtime", "swimlane", "no-resident"],
)
def test_stepped_scalars_fail_before_compile(capsys, kwargs, config, rule):
    result = run(fn=accumulate, specs=specs(step=1.0, **kwargs), golden_fn=golden, config=config)
    assert not result.passed
    assert result.error == f"ScalarSpec 'a' has benchmark_step, {rule}"
    assert "[RUN] compile" not in capsys.readouterr().out


@pl.jit
def two_scalars(
    x: pl.Tensor[[N, N], pl.FP32],
    a: pl.Scalar[pl.FP32],
    b: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[N, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="two"):
        y[:, :] = pl.add(pl.add(x[:, :], a), b)
    return y


def test_the_stepped_scalar_error_names_every_scalar_and_every_rule():
    result = run(fn=two_scalars, specs=[TensorSpec("x", [N, N], torch.float32, init_value=1.0),
                                        ScalarSpec("a", torch.float32, 1.0, benchmark_step=1.0),
                                        ScalarSpec("b", torch.float32, 2.0, compile_runtime=True, benchmark_step=2.0),
                                        TensorSpec("y", [N, N], torch.float32)],
                 golden_fn=lambda v: None, config={"enable_chip_swimlane": 1})
    swimlane = ("cannot be combined with enable_chip_swimlane (one handle call may run several physical passes "
                "with the same argument list)")
    residents = ("needs resident specs (the L3 persistent-window benchmark); this run has none, so every launch "
                 "would repeat one argument list")
    assert result.error == (
        f"ScalarSpec 'a' has benchmark_step, which {swimlane}, and which on a @pl.jit kernel needs "
        "compile_runtime=True (otherwise the compiler may fold the initial value into the artifact), and which "
        f"{residents}; ScalarSpec 'b' has benchmark_step, which {swimlane}, and which {residents}")


def test_a_replay_refuses_a_stepped_scalar_with_the_swimlane_too(capsys):
    build = run(fn=accumulate, specs=specs(compile_runtime=True), golden_fn=golden, compile_only=True).work_dir
    result = run(fn=accumulate, specs=specs(step=0.5, compile_runtime=True), golden_fn=golden, runtime_dir=build,
                 config={"enable_chip_swimlane": 2})
    assert not result.passed
    assert result.error == ("ScalarSpec 'a' has benchmark_step, which cannot be combined with enable_chip_swimlane "
                            "(one handle call may run several physical passes with the same argument list)")


def test_replay_with_a_stepped_scalar_skips_the_benchmark(monkeypatch, capsys):
    build = run(fn=accumulate, specs=specs(compile_runtime=True), golden_fn=golden, compile_only=True).work_dir
    monkeypatch.setenv("PYPTO_BENCH", "1")
    result = run(fn=accumulate, specs=specs(step=0.5, compile_runtime=True), golden_fn=golden, runtime_dir=build)
    assert result.passed and result.bench is None
    out = capsys.readouterr().out
    assert ("[RUN] benchmark skipped: stepped scalar(s) 'a' on a runtime_dir replay (the artifact's metadata cannot "
            "prove the scalar is forwarded rather than folded); recompile to benchmark it") in out.splitlines()
    assert "[RUN] benchmark ..." not in out


def test_replay_without_stepped_scalars_benchmarks(monkeypatch):
    build = run(fn=accumulate, specs=specs(), golden_fn=golden, compile_only=True).work_dir
    monkeypatch.setenv("PYPTO_BENCH", "1")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "2")
    assert len(run(fn=accumulate, specs=specs(), golden_fn=golden, runtime_dir=build).bench.samples) == 2


@pytest.mark.parametrize(
    "dtype, value, step, message",
    [
        (torch.int32, 1, 0.5, "ScalarSpec 'n' dtype=torch.int32 requires an int benchmark_step, got float"),
        (torch.bool, True, 1,
         "ScalarSpec 'n': benchmark_step must be an int or float step for a numeric dtype, got int for torch.bool"),
        (torch.float32, 1.0, True,
         "ScalarSpec 'n': benchmark_step must be an int or float step for a numeric dtype, got bool for torch.float32"),
        (torch.float32, 1.0, "2",
         "ScalarSpec 'n' dtype=torch.float32 requires an int or float benchmark_step, got str"),
    ],
)
def test_benchmark_step_is_validated(dtype, value, step, message):
    with pytest.raises(ValueError) as err:
        ScalarSpec("n", dtype, value, benchmark_step=step)
    assert str(err.value) == message


def test_zero_step_is_not_stepped():
    assert run(fn=accumulate, specs=specs(step=0), golden_fn=golden).passed


BENCH_FIELDS = ["metric", "rounds", "warmup", "samples", "min", "median", "mean", "max", "stdev", "level", "devices",
                "rank_samples"]
CONTEXT_TYPES = {"build_type": str, "date": str, "host_name": str, "num_cpus": int, "pypto_golden_version": str,
                 "sim_threads": int, "torch_version": str}


def test_the_binding_exposes_exactly_the_declared_fields(monkeypatch):
    import dataclasses

    from golden import runner as golden_runner
    from golden.native import native

    assert [name for name, _, _ in native.bench_stats_fields] == BENCH_FIELDS
    assert all(isinstance(doc, str) and doc for _, _, doc in native.bench_stats_fields)
    assert [f.name for f in dataclasses.fields(BenchStats)] == BENCH_FIELDS
    # The dict run() hands back has those keys, no more (BenchStats(**d) would refuse more).
    seen = []

    class Recording:
        def __getattr__(self, name):
            return getattr(native, name)

        def run(self, *args):
            out = native.run(*args)
            seen.append(out[4])
            return out

    monkeypatch.setattr(golden_runner, "native", Recording())
    monkeypatch.setenv("PYPTO_BENCH", "1")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "2")
    result = run(fn=accumulate, specs=specs(), golden_fn=golden)
    assert list(seen[0]) == BENCH_FIELDS
    assert dataclasses.asdict(result.bench) == seen[0]


def test_json_report_has_a_context_block(monkeypatch, tmp_path):
    import datetime

    import golden as G

    path = tmp_path / "bench.json"
    monkeypatch.setenv("PYPTO_BENCH", "1")
    monkeypatch.setenv("PYPTO_BENCH_ROUNDS", "2")
    monkeypatch.setenv("PYPTO_SIM_THREADS", "3")
    monkeypatch.setenv("PYPTO_BENCH_JSON", str(path))
    run(fn=accumulate, specs=specs(), golden_fn=golden)
    doc = json.loads(path.read_text())
    context = doc["context"]
    assert {k: type(v) for k, v in context.items()} == CONTEXT_TYPES
    assert context["sim_threads"] == 3 and context["num_cpus"] >= 1
    assert context["torch_version"] == torch.__version__ and context["pypto_golden_version"] == G.__version__
    assert context["build_type"]
    when = datetime.datetime.strptime(context["date"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs((datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - when).total_seconds()) < 600
    # The result fields stay where they were.
    assert {"kernel", "platform", "rounds", "warmup", "effective_us", "host_us"} <= set(doc)
