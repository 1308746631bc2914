"""An L3 build reloaded from its directory (DistributedCompiledProgram.from_dir) and dispatched
through a DistributedWorker whose resident KV cache outlives each dispatch, as a serving loop
(pypto-lib's synthetic_token_loop) drives prefill and decode; and a script's child Python
processes, which import the same golden and pypto."""

import re

from conftest import SAMPLES, clean_env

SCRIPT = '''
import sys
import torch
import pypto.language as pl
from pypto.ir.compiled_program import CompiledProgram
from pypto.ir.distributed_compiled_program import DistributedCompiledProgram, DistributedConfig
from pypto.runtime import DeviceTensor, DistributedWorker, RunConfig, StackedDeviceTensor

# The sample's decode step: each rank appends k[r] to its cache shard at `pos` and sums rows
# 0..pos into out[r].
sys.path.insert(0, SAMPLES)
from kv_cache_append import CAPACITY as CAP, HEAD, WORLD, kv_cache_append as step  # noqa: E402


@pl.jit
def double(x: pl.Tensor[[4, 4], pl.FP32], y: pl.Out[pl.Tensor[[4, 4], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [4, 4])
        y = pl.store(pl.add(t, t), [0, 0], y)
    return y


def expect(error, call):
    try:
        call()
    except error as e:
        print("%s: %s" % (error.__name__, e))
    else:
        raise SystemExit("no %s" % error.__name__)


config = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=[0, 1]))
built = step.compile(pos=pl.RUNTIME, config=config)
print("compiled", type(built).__name__)
prog = DistributedCompiledProgram.from_dir(built.output_dir)
infos, outs, rets = prog._get_metadata()
print("params", [(i.name, i.direction.name, i.shape, str(i.dtype)) for i in infos], outs, rets)
print("devices", prog.distributed_config.device_ids, prog.platform)

torch.manual_seed(0)
cache0 = torch.randn(WORLD, CAP, HEAD)
initial = cache0.clone()
with prog.prepare() as worker:
    cache = worker.alloc_stacked_tensor(cache0)
    print("stacked", isinstance(cache, StackedDeviceTensor), isinstance(cache[1], DeviceTensor), cache.shape)
    ref = cache0.clone()
    for pos in range(3):
        k = torch.randn(WORLD, 1, HEAD)
        out = torch.zeros(WORLD, 1, HEAD)
        worker.run(prog, k, cache, out, pos)
        ref[:, pos] = k[:, 0]
        ok = torch.allclose(out, ref[:, :pos + 1].sum(1, keepdim=True), rtol=1e-6, atol=1e-6)
        print("decode step", pos, "ok" if ok else "WRONG")
    print("host tensor kept", torch.equal(cache0, initial))  # the worker's copy took the writes
    worker.free_stacked_tensor(cache)
    expect(ValueError, lambda: worker.run(prog, k, cache, out, 0))
    expect(ValueError, lambda: worker.free_stacked_tensor(cache))
    expect(ValueError, lambda: worker.alloc_tensor([2], torch.float32, worker_id=2))
    other = DistributedCompiledProgram.from_dir(built.output_dir)
    expect(ValueError, lambda: worker.run(other, k, worker.alloc_stacked_tensor(cache0), out, 0))
expect(RuntimeError, lambda: worker.alloc_tensor([2], torch.float32))
both = DistributedWorker([prog, other])
expect(TypeError, lambda: both(k, cache0.clone(), out, 0))
expect(FileNotFoundError, lambda: DistributedCompiledProgram.from_dir(built.output_dir.parent))
expect(ValueError, lambda: DistributedCompiledProgram.from_dir(
    built.output_dir, distributed_config=DistributedConfig(device_ids=[0, 1, 2])))

x = torch.randn(4, 4)
y = torch.zeros(4, 4)
single = CompiledProgram.from_dir(double.compile(x, y).output_dir)
single(x, y)
print("single-chip from_dir", torch.equal(y, x + x))
expect(FileNotFoundError, lambda: DistributedCompiledProgram.from_dir(single.output_dir))
'''


def test_a_reloaded_l3_program_runs_decode_steps_on_a_resident_cache(host, tmp_path):
    script = tmp_path / "serve.py"
    script.write_text(SCRIPT.replace("SAMPLES", repr(str(SAMPLES))))
    proc = host(script, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    builds = tmp_path / "build_output"
    assert "compiled DistributedCompiledProgram" in out
    assert ("params [('k_new', 'In', [2, 1, 64], 'fp32'), ('cache', 'InOut', [2, 160, 64], 'fp32'), "
            "('out', 'Out', [2, 1, 64], 'fp32'), ('pos', 'In', None, 'int32')] [2] []") in out
    assert "devices [0, 1] a2a3sim" in out
    assert "stacked True True (2, 160, 64)" in out
    # Each step reads the rows the earlier ones appended to the resident cache.
    assert [ln for ln in out.splitlines() if ln.startswith("decode step")] == [
        "decode step 0 ok", "decode step 1 ok", "decode step 2 ok"]
    assert "host tensor kept True" in out
    errors = [ln for ln in out.splitlines() if re.match(r"\w+Error: ", ln)]
    assert errors[0] == ("ValueError: argument 1: StackedDeviceTensor(full_shape=(2, 160, 64), dtype=torch.float32, "
                         "worker_ids=(0, 1)) is not a live tensor of this worker")
    assert errors[1] == ("ValueError: free_stacked_tensor: StackedDeviceTensor(full_shape=(2, 160, 64), "
                         "dtype=torch.float32, worker_ids=(0, 1)) is not a live tensor of this worker (freed "
                         "already, or allocated by another worker)")
    assert errors[2] == ("ValueError: alloc_tensor: worker_id 2 is not a worker of this DistributedWorker (0..1)")
    assert re.fullmatch(r"ValueError: run: DistributedCompiledProgram\((\S+)\) was not prepared on this worker "
                        r"\(its programs: \1\)", errors[3]), errors[3]
    assert errors[4] == "RuntimeError: DistributedWorker.alloc_tensor: the worker is closed"
    assert errors[5] == ("TypeError: this DistributedWorker holds 2 programs; say which with "
                         "worker.run(compiled, *args)")
    assert errors[6] == ("FileNotFoundError: %s/distributed_meta.json not found: %s is not a build directory of "
                         "an L3 program (recompile it to make one)" % (builds, builds))
    assert re.fullmatch(r"ValueError: DistributedCompiledProgram.from_dir\(\S+\): distributed_config names 3 "
                        r"device\(s\) \[0, 1, 2\], but the program was built for 2 rank\(s\) \[0, 1\]; recompile "
                        r"it for these devices", errors[7]), errors[7]
    assert "single-chip from_dir True" in out
    assert re.fullmatch(r"FileNotFoundError: (\S+)/distributed_meta.json not found: \1 is not a build directory "
                        r"of an L3 program \(recompile it to make one\)", errors[8]), errors[8]


def test_the_serving_flow_under_python3_too(python3, tmp_path):
    script = tmp_path / "serve.py"
    script.write_text(SCRIPT.replace("SAMPLES", repr(str(SAMPLES))))
    proc = python3(script, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("decode step")] == [
        "decode step 0 ok", "decode step 1 ok", "decode step 2 ok"]
    assert "single-chip from_dir True" in proc.stdout


def test_a_malformed_build_directory_is_one_message(host, tmp_path):
    build = tmp_path / "b"
    build.mkdir()
    (build / "distributed_meta.json").write_text('{"schema": 1, "params": [{"name": "x"}]}')
    script = tmp_path / "load.py"
    script.write_text("from pypto.ir.distributed_compiled_program import DistributedCompiledProgram\n"
                      "DistributedCompiledProgram.from_dir(%r)\n" % str(build))
    proc = host(script)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "ValueError: %s/distributed_meta.json: parameter 0 is malformed (KeyError: 'direction'); recompile the "
        "kernel to refresh the build directory" % build)


def test_a_child_python_of_the_script_imports_the_same_golden_and_pypto(host, tmp_path):
    # pypto-lib's serving loop compiles its programs in `sys.executable script.py --compile-only`.
    script = tmp_path / "parent.py"
    script.write_text(
        "import subprocess, sys\n"
        "r = subprocess.run([sys.executable, '-c', 'import golden, pypto.language, _pypto_golden; "
        "print(golden.__file__)'], capture_output=True, text=True)\n"
        "print('child', r.returncode, r.stdout.strip(), r.stderr.strip()[-200:])\n")
    proc = host(script, env=clean_env(tmp_path, PYTHONPATH="/nonexistent"))
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^child 0 \S+/golden/__init__\.py $", proc.stdout, re.M), proc.stdout
