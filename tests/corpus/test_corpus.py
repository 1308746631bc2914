"""Regression test over the real-kernel corpus: the scripts of fast_passing.txt (each passes in
well under 20 s on this project's simulator) still pass, unmodified. Skipped when no pypto-lib
checkout is present (PYPTO_GOLDEN_CORPUS, else ../shared/corpus/pypto-lib beside the repo)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_corpus  # noqa: E402

CORPUS = run_corpus.corpus_dir(None)
# Fixed random inputs: a verdict changes with the code, not with the draw (README lists the
# scripts whose verdict depends on the draw; they stay off the fast list all the same).
SEED = 20261202


@pytest.mark.skipif(not (CORPUS / "examples").is_dir(), reason="no pypto-lib corpus at %s" % CORPUS)
def test_the_fast_passing_corpus_scripts_still_pass(tmp_path):
    binary = os.environ.get("PYPTO_GOLDEN_BIN") or str(run_corpus.REPO / "build" / "bin" / "pypto-golden")
    done = subprocess.run([sys.executable, str(HERE / "run_corpus.py"), "--list", str(HERE / "fast_passing.txt"),
                           "--bin", binary, "--timeout", "120", "--jobs", str(min(2, os.cpu_count() or 1)),
                           "--keep", str(tmp_path), "--seed", str(SEED)], capture_output=True, text=True, timeout=1800)
    rows = [line for line in done.stdout.splitlines() if line.split(" ", 1)[0] in run_corpus.VERDICTS]
    failed = [line for line in rows if not line.startswith("PASS ")]
    assert rows and not failed, done.stdout + done.stderr
    assert done.returncode == 0


@pytest.mark.skipif(not (CORPUS / "examples").is_dir(), reason="no pypto-lib corpus at %s" % CORPUS)
def test_the_task_graph_of_a_production_kernel_follows_its_dataflow(tmp_path):
    """DeepSeek V4's sliding-window sparse attention, run with its own --enable-dep-gen flag:
    its graph is PyPTO's, a node per pl.at and per pl.spmd launch (with its block count), and
    its edges run gather -> qk_pv -> merge_norm, with the two pl.at stages feeding them; the
    kernel's own deps= (gather -> qk_pv -> merge_norm, rope_cs -> merge_norm) agree with
    the edges its data gives."""
    binary = os.environ.get("PYPTO_GOLDEN_BIN") or str(run_corpus.REPO / "build" / "bin" / "pypto-golden")
    script = "models/deepseek_v4_flash_dspark/decode_sparse_attn_swa.py"
    work, env, multi = run_corpus.prepare(script, CORPUS, tmp_path, seed=SEED)
    done = subprocess.run(run_corpus.command(binary, script, multi) + ["--enable-dep-gen"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (deps_file,) = (work / "build_output").glob("*/dfx_outputs/deps.json")
    deps = json.loads(deps_file.read_text())
    names = [t["func_name"] for t in deps["tasks"]]
    assert [(t["func_name"], t["kind"], t["block_num"]) for t in deps["tasks"]] == [
        ("swa_valid_bias", "task", 1), ("swa_gather_kv", "spmd", 512), ("qk_pv", "spmd", 128),
        ("rope_cs", "task", 1), ("merge_norm", "spmd", 512)]
    flows = {(names[e["pred"]], names[e["succ"]], e["source"]) for e in deps["edges"]}
    assert flows == {("swa_gather_kv", "qk_pv", "tensormap"), ("qk_pv", "merge_norm", "tensormap"),
                     ("rope_cs", "merge_norm", "tensormap"), ("swa_valid_bias", "qk_pv", "tensormap"),
                     ("swa_gather_kv", "qk_pv", "explicit"), ("qk_pv", "merge_norm", "explicit"),
                     ("rope_cs", "merge_norm", "explicit")}


def test_a_binary_given_by_a_relative_path_runs_from_every_work_directory(tmp_path, monkeypatch, capsys):
    (tmp_path / "corpus" / "examples" / "a").mkdir(parents=True)
    (tmp_path / "corpus" / "examples" / "a" / "k.py").write_text("if __name__ == '__main__':\n    pass\n")
    fake = tmp_path / "bin" / "pypto-golden"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho '[RUN] PASS (0.1s)'\n")
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert run_corpus.main(["--corpus", "corpus", "--bin", "bin/pypto-golden", "--jobs", "1", "examples/a/k.py"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(", %s" % fake) and out.splitlines()[1].startswith("PASS ")


def test_runnable_scripts_are_the_main_files_of_examples_and_models(tmp_path):
    for rel, text in {"examples/a/k.py": "if __name__ == '__main__':\n    pass\n",
                      "examples/a/helper.py": "def f(): pass\n",
                      "models/m/deep/x.py": "if __name__ == \"__main__\":\n    pass\n",
                      "models/m/run.py": 'if __name__ == "__main__":\n    main()\n'}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert run_corpus.runnable_scripts(tmp_path) == ["examples/a/k.py", "models/m/run.py"]


@pytest.mark.parametrize("returncode, output, timed_out, killed, verdict", [
    (0, "[RUN] validate done\n[RUN] PASS (0.1s)\n", False, False, "PASS"),
    (1, "[RUN]   'y' FAIL  shape=(4,)\n[RUN] FAIL (0.1s)\n", False, False, "MISMATCH"),
    (1, "Traceback...\nValueError: bad\n", False, False, "ERROR"),
    (-9, "", True, False, "TIMEOUT"),
    (-9, "", False, True, "OOM"),
    (1, "[RUN] FAIL: not enough memory for this run: its tensors need at least 40.0 GiB ...\n", False, False, "OOM"),
    (3, "[SESSION] host resident 44/64\npypto-golden: out of memory: 120.0 MiB of this machine's 23.5 GiB are "
        "left and the run holds 22.9 GiB; stopped ...\n", False, False, "OOM"),
    (0, "[RUN] compile done\nno verdict line\n", False, False, "ERROR"),
    # A script that never calls golden.run (a compile smoke test): its exit status decides.
    (0, "Lowered with 3 function(s).\n", False, False, "PASS"),
    (1, "Traceback...\nRuntimeError: non-finite output\n", False, False, "ERROR"),
])
def test_verdicts(returncode, output, timed_out, killed, verdict):
    assert run_corpus.classify(returncode, output, timed_out, killed) == verdict


def test_the_telling_line_and_reasons_outside_the_project():
    out = ("[RUN] compile ...\nTraceback (most recent call last):\n  File x\n"
           "AttributeError: module 'config' has no attribute 'X'\n")
    assert run_corpus.telling_line(out) == "AttributeError: module 'config' has no attribute 'X'"
    assert run_corpus.outside_reason(out) == "its config module has no attribute 'X' (out of date)"
    assert run_corpus.telling_line("[RUN]   'y' FAIL  shape=(4,)\n[RUN] FAIL\n") == "[RUN]   'y' FAIL  shape=(4,)"
    located = "golden.KernelError: /tmp/w/m_k.py.x1/k.py:132: pl.slice: the window is outside the tensor\n"
    assert run_corpus.telling_line(located, Path("/tmp/w/m_k.py.x1")) == (
        "golden.KernelError: k.py:132: pl.slice: the window is outside the tensor")
    refused = "k.py: error: argument -p/--platform: invalid choice: 'a2a3sim' (choose from 'a2a3', 'a5')"
    assert run_corpus.outside_reason(refused) == "its argparse refuses -p a2a3sim"
    extern = ("pypto.compiler.errors.KernelCompileError: k.py:9: 'attn' is a @pl.jit.extern kernel: hand-written "
              "device C++ (a.cce), which the simulator cannot execute; it runs only on an Ascend NPU")
    assert run_corpus.outside_reason(extern) == (
        "it calls 'attn', hand-written device C++ (@pl.jit.extern), which no simulator runs")
    stale = "AttributeError: 'Qwen3Config' object has no attribute 'batch'"
    assert run_corpus.outside_reason(stale) == "its config's Qwen3Config has no attribute 'batch' (out of date)"
    dims = "AttributeError: 'Qwen3DynamicDims' object has no attribute 'user_batch'"
    assert run_corpus.outside_reason(dims, "import x\n\nclass Qwen3DynamicDims:\n    pass\n") == (
        "its config's Qwen3DynamicDims has no attribute 'user_batch' (out of date)")
    assert run_corpus.outside_reason(dims) == ""  # not a class of its config module
    isa = ("RuntimeError: pypto.runtime.pto_isa_include_dir(): pypto-golden has no PTO-ISA checkout; it "
           "simulates kernels instead of compiling them to C++, so ...")
    assert run_corpus.outside_reason(isa) == (
        "it builds hand-written device C++ against the PTO-ISA headers (pto_isa_include_dir), which no simulator runs")
    overrun = ("golden.KernelError: d.py:348: pl.assemble: the write is outside the target: axis 2 gets [9:17] but "
               "the extent is 16 (target shape (64, 1, 16, 128), source shape (8, 128)); a source of 2 axes fills "
               "the target's last 2, as PyPTO's tile.store does (b=9, gi=0)")
    assert run_corpus.outside_reason(overrun) == (
        "its kernel writes a (8, 128) tile into a (64, 1, 16, 128) tensor past axis 2's end: PyPTO's tile.store "
        "puts a lower-rank tile on the trailing axes, where it overruns too (a kernel bug)")
    refused = ("[RUN] FAIL: not enough memory for this run: its tensors need at least 86.6 GiB (83.4 GiB of In "
               "tensors, held once, ...) but 17.7 GiB is available")
    assert run_corpus.outside_reason(refused, memory_gib=23.4) == (
        "it needs at least 86.6 GiB, more than this machine's 23.4 GiB of memory")
    assert run_corpus.outside_reason(refused.replace("86.6", "20.1"), memory_gib=23.4) == ""  # fits: ours to fix
    init = ("not enough memory for this run: TensorSpec 'w': its init_value callable tried to allocate 120.1 GiB "
            "and the allocator refused")
    assert run_corpus.outside_reason(init, memory_gib=23.4) == (
        "it needs at least 120.1 GiB, more than this machine's 23.4 GiB of memory")
    reshape = ("golden.KernelError: d.py:1224: pl.reshape: cannot reshape (32, 128, 1, 512) (2097152 elements) to "
               "[1024, 512] (524288 elements) (rank=0, pair_i=0); on rank 0 (device 0)")
    assert run_corpus.outside_reason(reshape) == (
        "its kernel reshapes a (32, 128, 1, 512) tensor (2097152 elements) to [1024, 512] (524288 elements): "
        "PyPTO's tensor.reshape refuses a reshape that changes the element count too (a kernel bug)")
    guarded = ("pypto-golden: out of memory: 225.2 MiB of this machine's 23.5 GiB are left and the run holds 22.9 GiB; "
               "stopped before the kernel's OOM killer ends it without a word (exit status 3; ...)\n")
    assert run_corpus.outside_reason(guarded) == (
        "its own code holds 22.9 GiB before it calls golden.run, more than this machine's memory leaves it "
        "(pypto-golden's memory guard stopped it)")
    assert run_corpus.outside_reason("[RUN] compile ...\n" + guarded) == ""  # in the run: ours to fix
    # The same overrun by a source of the target's rank is not explained away.
    assert run_corpus.outside_reason("pl.assemble: the write is outside the target: axis 0 gets [3:5] but the "
                                     "extent is 4 (target shape (4, 6), source shape (2, 3))") == ""
    assert run_corpus.is_multi_device("import pypto.language.distributed as pld\n")
    assert not run_corpus.is_multi_device("import pypto.language as pl\n")
    assert run_corpus.is_multi_device('"""Doc."""\n# ci: devices=2  # CI: 2-card run\nimport torch\n')
    assert not run_corpus.is_multi_device("# ci: devices=1\n")
    assert run_corpus.is_multi_device("from pypto.runtime import DistributedWorker, RunConfig\n")


def test_outputs_the_kernel_never_wrote_are_read_from_the_report():
    out = ("    never written: 3072 of 4096 elements of 'kv' (the first at index (0, 1, 0)). A pure pl.Out ...\n"
           "    never written: 5 of 8 elements of 'y' (the first at index (3,)). A pure pl.Out ...\n")
    found = run_corpus.unwritten_outputs(out)
    assert found == [("kv", 3072, 4096), ("y", 5, 8)]
    assert run_corpus.unwritten_reason(found) == (
        "its golden expects zeros where the kernel never writes a pure Out (3072 of 4096 elements of 'kv', "
        "5 of 8 elements of 'y'); passes with PYPTO_SIM_OUT_INIT=zero")
    assert run_corpus.unwritten_outputs("[RUN]   'y' FAIL\n") == []


def test_a_script_refusing_the_simulator_platform_is_rerun_as_its_hardware_platform():
    refused = ("usage: k.py [-h] [-p {a2a3,a5}]\nk.py: error: argument -p/--platform: invalid choice: 'a2a3sim' "
               "(choose from 'a2a3', 'a5')\n")
    assert run_corpus.hardware_choice(refused) == "a2a3"
    assert run_corpus.hardware_choice(refused.replace("'a2a3', 'a5'", "'a5'")) == "a5"
    assert run_corpus.hardware_choice("[RUN] PASS\n") is None
    row = run_corpus.Row("m/k.py", "PASS", 1.0, 10.0, "[RUN] PASS", simulated="a2a3")
    assert row.note == "ran as --simulate -p a2a3"
    assert run_corpus.Row("m/k.py", "PASS", 1.0, 10.0, "done", no_golden=True).note == \
        "no golden.run: its own checks, exit 0"


def test_command_lines_under_pypto_golden_and_under_python3(monkeypatch):
    monkeypatch.delenv("PYPTO_GOLDEN_EXT_DIR", raising=False)
    c = run_corpus.command
    assert c("/b/pypto-golden", "models/m/k.py", False) == ["/b/pypto-golden", "k.py", "-p", "a2a3sim", "-d", "0"]
    assert c("/b/pypto-golden", "models/m/k.py", True, "a5") == ["/b/pypto-golden", "--simulate", "k.py", "-p", "a5"]
    assert c("/b/pypto-golden", "models/m/k.py", False, python="/v/python") == [
        "/v/python", "k.py", "-p", "a2a3sim", "-d", "0"]
    assert c("/b/pypto-golden", "models/m/k.py", True, "a2a3", "/v/python") == ["/v/python", "k.py", "-p", "a2a3"]
    env = run_corpus.python_env({"HOME": "/h"}, Path("/c"), "/build/bin/pypto-golden", "a2a3")
    assert env == {"HOME": "/h", "PYTHONPATH": "/c:%s:/build/python" % (run_corpus.REPO / "pylib"),
                   "PYPTO_GOLDEN_SIMULATE": "1"}


@pytest.mark.skipif(not (CORPUS / "examples").is_dir(), reason="no pypto-lib corpus at %s" % CORPUS)
def test_an_l3_corpus_script_passes_under_python3_too(tmp_path):
    # The L3 issue asks for both: under pypto-golden (the fast list) and under python3.
    binary = os.environ.get("PYPTO_GOLDEN_BIN") or str(run_corpus.REPO / "build" / "bin" / "pypto-golden")
    done = subprocess.run([sys.executable, str(HERE / "run_corpus.py"), "--python", sys.executable, "--bin", binary,
                           "--jobs", "1", "--seed", str(SEED), "examples/advanced/allreduce.py",
                           "models/qwen3_14b/topk_select.py"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(extension module of %s)" % binary in done.stdout.splitlines()[0]
    assert "2 scripts: 2 PASS," in done.stdout


def test_a_failure_keeps_its_seed_and_a_seed_reaches_every_script(tmp_path):
    output = ("[RUN] validate ...\n[RUN]   inputs drawn from torch seed 88: run again with --seed 88 "
              "(or PYPTO_GOLDEN_SEED=88) for the same inputs\n")
    assert run_corpus.drawn_seed(output) == "88"
    assert run_corpus.drawn_seed("[RUN] PASS (0.1s)\n") == ""
    assert run_corpus.Row("s.py", "MISMATCH", 1.0, 2.0, "x", multi_device=True, seed="88").note == \
        "multi-device; seed 88"
    (tmp_path / "corpus" / "examples" / "a").mkdir(parents=True)
    (tmp_path / "corpus" / "examples" / "a" / "k.py").write_text("pass\n")
    (tmp_path / "work").mkdir()
    _, env, _ = run_corpus.prepare("examples/a/k.py", tmp_path / "corpus", tmp_path / "work", seed=5)
    assert env["PYPTO_GOLDEN_SEED"] == "5"
    _, env, _ = run_corpus.prepare("examples/a/k.py", tmp_path / "corpus", tmp_path / "work")
    assert "PYPTO_GOLDEN_SEED" not in env
