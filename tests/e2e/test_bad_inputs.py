"""Every bad input ends with one clear message and a non-zero exit, never a crash."""

import re

import pytest

from conftest import SAMPLES, clean_env
from kernel_scripts import line_of, write_kernel_script


def last_line(text):
    return text.strip().splitlines()[-1]


def test_script_not_found(host):
    proc = host("nope.py", "-p", "a2a3sim")
    assert proc.returncode == 2
    assert proc.stderr == "pypto-golden: script not found: nope.py\n"


def test_script_is_a_directory(host, tmp_path):
    proc = host(tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"pypto-golden: {tmp_path} is a directory, not a Python script\n"


def test_script_is_not_python(host, tmp_path):
    blob = tmp_path / "kernel.py"
    blob.write_bytes(b"\x7fELF\x00\x01binary")
    proc = host(blob)
    assert proc.returncode == 2
    assert proc.stderr == f"pypto-golden: {blob} is not a Python script (it holds binary data)\n"


def test_script_with_a_syntax_error(host, tmp_path):
    bad = tmp_path / "kernel.py"
    bad.write_text("def broken(:\n    pass\n")
    proc = host(bad)
    assert proc.returncode == 1
    assert f'File "{bad}", line 1' in proc.stderr
    assert last_line(proc.stderr) == "SyntaxError: invalid syntax"


def test_script_raising_at_import_shows_the_python_traceback(host, tmp_path):
    script = write_kernel_script(tmp_path, main="raise ZeroDivisionError('kaboom at import')\n")
    proc = host(script)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert f'  File "{script}", line {line_of(script, "kaboom")}, in <module>' in proc.stderr
    assert last_line(proc.stderr) == "ZeroDivisionError: kaboom at import"


def test_script_exit_code_is_kept(host, tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text("raise SystemExit(7)\n")
    assert host(script).returncode == 7
    script.write_text("import sys\nsys.exit('bye')\n")
    proc = host(script)
    assert (proc.returncode, proc.stderr) == (1, "bye\n")


@pytest.mark.parametrize(
    "specs, message",
    [
        (
            "[specs()[0], specs()[2], specs()[1]]",
            "golden.SpecError: specs do not match the parameters of kernel 'add_kernel': position 1 is the "
            "parameter 'a' but the spec is 'y' (kernel [x, a, y], specs [x, y, a]); list the specs in the "
            "kernel's parameter order",
        ),
        (
            "specs()[:2]",
            "golden.SpecError: specs do not match the parameters of kernel 'add_kernel': the kernel takes 3 "
            "parameters, the specs give 2 (kernel [x, a, y], specs [x, a]); list the specs in the kernel's "
            "parameter order",
        ),
        (
            "[specs()[0], specs()[1], TensorSpec('out', [ROWS, COLS], torch.float32)]",
            "golden.SpecError: specs do not match the parameters of kernel 'add_kernel': position 2 is the "
            "parameter 'y' but the spec is 'out' (kernel [x, a, y], specs [x, a, out]); list the specs in the "
            "kernel's parameter order",
        ),
        (
            "[specs()[0], specs()[1], specs()[0]]",
            "golden.SpecError: two specs are named 'x'; every spec needs its own name",
        ),
    ],
    ids=["wrong-order", "wrong-count", "wrong-name", "duplicate-name"],
)
def test_specs_that_do_not_match_the_signature(host, tmp_path, specs, message):
    script = write_kernel_script(tmp_path, main=f"finish(run(fn=add_kernel, specs={specs}, golden_fn=golden))\n")
    proc = host(script)
    assert proc.returncode == 1
    assert last_line(proc.stderr) == message


def run_with_x_spec(host, tmp_path, x_spec):
    """The test kernel run with `x_spec` for its parameter x: (script, process)."""
    script = write_kernel_script(
        tmp_path, main=f"finish(run(fn=add_kernel, specs=[{x_spec}] + specs()[1:], golden_fn=golden))\n")
    return script, host(script)


def test_a_spec_of_another_dtype_than_the_kernel_takes(host, tmp_path):
    _, proc = run_with_x_spec(host, tmp_path, "TensorSpec('x', [ROWS, COLS], torch.float16)")
    assert proc.returncode == 1
    assert last_line(proc.stderr).endswith("kernel.py:11: parameter 'x': annotated dtype fp32 but the tensor passed "
                                           "has dtype fp16")
    assert "[RUN] compile failed" in proc.stdout


def test_a_spec_of_other_extents_than_the_annotation_is_compiled_for_with_a_warning(host, tmp_path):
    # As PyPTO's JIT: the kernel is compiled for the spec's [64, 16]; the annotation is named
    # first, then the script's golden, written for [64, 32], fails on its own.
    script, proc = run_with_x_spec(host, tmp_path, "TensorSpec('x', [ROWS, 16], torch.float32)")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        f"{script}:11: UserWarning: parameter 'x': annotated shape [64, 32] but the tensor passed has shape [64, 16]; "
        "compiled for the tensor's shape, as PyPTO's JIT does")
    assert last_line(proc.stderr).startswith("RuntimeError: The expanded size of the tensor (32) must match")
    assert "[RUN] compile done" in proc.stdout and "[RUN] compute golden failed" in proc.stdout


def test_unknown_config_key(host, tmp_path):
    script = write_kernel_script(
        tmp_path, main="finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, config={'bogus': 1}))\n"
    )
    proc = host(script)
    assert proc.returncode == 1
    assert last_line(proc.stderr) == "TypeError: RunConfig.__init__() got an unexpected keyword argument 'bogus'"


def test_unknown_platform(host, tmp_path):
    script = write_kernel_script(
        tmp_path, main="finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, config={'platform': 'a9'}))\n"
    )
    proc = host(script)
    assert proc.returncode == 1
    assert last_line(proc.stderr) == "ValueError: Invalid platform 'a9'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."


def test_hardware_platform_without_hardware(host):
    proc = host(SAMPLES / "hello_world.py", "-p", "a2a3")
    assert proc.returncode == 1
    assert "[RUN] compile" not in proc.stdout  # refused before any work
    assert "[RUN] compute golden" not in proc.stdout
    assert last_line(proc.stderr) == (
        "golden.DeviceUnavailableError: platform 'a2a3' needs an Ascend NPU runtime (CANN and a device), which "
        "this machine does not have; run on the simulator with -p a2a3sim"
    )


def test_hardware_platform_compiles_only_without_hardware(host):
    proc = host("--compile-only", SAMPLES / "hello_world.py", "-p", "a2a3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("[RUN] PASS")


def test_simulate_runs_a_hardware_platform_on_its_simulator(host):
    proc = host("--simulate", SAMPLES / "hello_world.py", "-p", "a2a3")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "[RUN] simulate: platform 'a2a3' runs on the simulator 'a2a3sim'"
    assert lines[-1].startswith("[RUN] PASS")


def test_simulate_from_the_environment(host, tmp_path):
    proc = host(SAMPLES / "hello_world.py", "-p", "a5", env=clean_env(tmp_path, PYPTO_GOLDEN_SIMULATE="yes"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "[RUN] simulate: platform 'a5' runs on the simulator 'a5sim'"
    # A simulator platform is what it is: no line.
    proc = host(SAMPLES / "hello_world.py", "-p", "a2a3sim", env=clean_env(tmp_path, PYPTO_GOLDEN_SIMULATE="1"))
    assert proc.returncode == 0 and "simulate:" not in proc.stdout


def test_bad_simulate_value(host, tmp_path):
    proc = host(SAMPLES / "hello_world.py", "-p", "a2a3", env=clean_env(tmp_path, PYPTO_GOLDEN_SIMULATE="maybe"))
    assert proc.returncode == 1
    assert last_line(proc.stderr) == "ValueError: PYPTO_GOLDEN_SIMULATE must be 1 or 0, got 'maybe'"


@pytest.mark.parametrize("value", ["0", "abc", "-3"])
def test_bad_golden_thread_count(host, tmp_path, value):
    proc = host(SAMPLES / "hello_world.py", env=clean_env(tmp_path, PYPTO_GOLDEN_NUM_THREADS=value))
    assert proc.returncode == 1
    assert last_line(proc.stderr) == f"ValueError: PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got '{value}'"


def test_bad_simulator_thread_count(host, tmp_path):
    proc = host(SAMPLES / "hello_world.py", env=clean_env(tmp_path, PYPTO_SIM_THREADS="many"))
    assert proc.returncode == 1
    assert last_line(proc.stderr) == "ValueError: PYPTO_SIM_THREADS must be an integer from 1 to 1024, got 'many'"


def test_bad_sort_isa(host, tmp_path):
    proc = host(SAMPLES / "hello_world.py", env=clean_env(tmp_path, PYPTO_SIM_SORT_ISA="sse"))
    assert proc.returncode == 1
    assert last_line(proc.stderr) == (
        "ValueError: PYPTO_SIM_SORT_ISA must be 'auto', 'avx2' or 'scalar' (unset means auto), got 'sse'")


# A kernel object whose compile() builds normally, then damages compiled_meta.json, so the
# host's reader meets each kind of broken sidecar on the real path.
DAMAGED_META = """
import json, os

def rewrite(path, change):
    text = open(path).read()
    with open(path, "w") as f:
        f.write(change(text))

class DamagedBuild:
    param_names = add_kernel.param_names
    __name__ = "add_kernel"

    def compile(self, *args, **kwargs):
        compiled = add_kernel.compile(*args, **kwargs)
        meta = os.path.join(compiled.output_dir, "compiled_meta.json")
        (DAMAGE)(meta)
        return compiled

finish(run(fn=DamagedBuild(), specs=specs(), golden_fn=golden))
"""


@pytest.mark.parametrize(
    "damage, problem",
    [
        ("os.remove", "not found: the directory is not a PyPTO build (no compiled_meta.json)"),
        ("lambda p: rewrite(p, lambda t: '{oops')", "not valid JSON (syntax error at byte 2)"),
        (
            "lambda p: rewrite(p, lambda t: json.dumps(dict(json.loads(t), schema=3)))",
            "unsupported schema 3 (expected 1)",
        ),
        (
            "lambda p: rewrite(p, lambda t: t.replace('\"Out\"', '\"Sideways\"'))",
            "params[2].direction must be one of In, Out, InOut, got 'Sideways'",
        ),
    ],
    ids=["missing", "not-json", "wrong-schema", "bad-field"],
)
def test_broken_compiled_meta(host, tmp_path, damage, problem):
    script = write_kernel_script(tmp_path, main=DAMAGED_META.replace("DAMAGE", damage))
    proc = host(script)
    assert proc.returncode == 1
    build = next((tmp_path / "build_output").iterdir())
    sep = ": " if "not found" not in problem else " "
    assert last_line(proc.stderr) == (
        f"golden.ArtifactError: {build / 'compiled_meta.json'}{sep}{problem}; recompile the kernel to refresh the build"
    )
    assert "[RUN] compile failed" in proc.stdout


def test_golden_function_raising(host, tmp_path):
    script = write_kernel_script(
        tmp_path,
        prelude="",
        main="def bad_golden(v):\n    raise KeyError('z')\n\n"
        "finish(run(fn=add_kernel, specs=specs(), golden_fn=bad_golden))\n",
    )
    proc = host(script)
    assert proc.returncode == 1
    assert "[RUN] compute golden failed" in proc.stdout
    assert "[RUN] runtime ..." not in proc.stdout  # a broken golden never reaches the device
    assert f'line {line_of(script, "raise KeyError")}, in bad_golden' in proc.stderr
    assert last_line(proc.stderr) == "KeyError: 'z'"


def test_kernel_compile_error_shows_the_source_line_and_a_caret(host, tmp_path):
    script = write_kernel_script(tmp_path)
    script.write_text(script.read_text().replace("pl.add(x[r : r + 16, :], a)", "x[r : r + 16, :] ** a"))
    proc = host(script)
    assert proc.returncode == 1
    assert "[RUN] compile failed" in proc.stdout
    line = line_of(script, "** a")
    assert proc.stderr.splitlines()[-3:] == [
        f"pypto.compiler.errors.KernelCompileError: {script}:{line}: "
        "operator '**' is not supported in a kernel",
        "    y[r : r + 16, :] = x[r : r + 16, :] ** a",
        "                       ^^^^^^^^^^^^^^^^^^^^^",
    ]


WRONG_GOLDEN_MAIN = """
def wrong(values):
    values["y"][:] = values["x"]

finish(run(fn=add_kernel, specs=specs(), golden_fn=wrong, config={"platform": "a2a3sim"}))
"""


def test_a_failing_run_with_random_inputs_names_the_seed_that_draws_them_again(host, tmp_path):
    script = write_kernel_script(tmp_path, main=WRONG_GOLDEN_MAIN)
    proc = host(script)
    assert proc.returncode == 1
    found = re.search(r"^\[RUN\]   inputs drawn from torch seed (\d+): run again with --seed (\d+) "
                      r"\(or PYPTO_GOLDEN_SEED=(\d+)\) for the same inputs$", proc.stdout, re.M)
    assert found and found[1] == found[2] == found[3], proc.stdout

    def mismatches(out):  # "[k] actual=..., expected=..." lines (the values of x), without the run's time
        return [re.sub(r" \(\d+\.\d\ds\)$", "", line) for line in out.splitlines()
                if re.match(r"^    \[\d+\] actual=", line)]

    assert len(mismatches(proc.stdout)) == 20
    again = host("--seed", found[1], script)
    assert again.returncode == 1
    assert found[0] in again.stdout
    assert mismatches(again.stdout) == mismatches(proc.stdout)  # the same x, so the same values
    constant = write_kernel_script(tmp_path, main=WRONG_GOLDEN_MAIN.replace(
        "specs=specs()", "specs=[TensorSpec('x', [ROWS, COLS], torch.float32, init_value=1.5), *specs()[1:]]"),
        name="constant.py")
    proc = host(constant)
    assert proc.returncode == 1 and "Mismatched elements" in proc.stdout
    assert "inputs drawn from torch seed" not in proc.stdout  # nothing random to reproduce


INT8_COPY = """
import torch
import pypto.language as pl
from golden import TensorSpec, run


@pl.jit
def copy_kernel(x: pl.Tensor[[64, 32], pl.INT8], y: pl.Out[pl.Tensor[[64, 32], pl.INT8]]):
    for r in pl.parallel(0, 64, ROW_STEP):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
            y[r : r + 16, :] = x[r : r + 16, :]
    return y


def init_x():
    x = torch.ones(64, 32, dtype=torch.int8)
    x[5, :] = -91  # the simulator's int8 poison value, written by the kernel
    x[17, :] = -91  # on row_step=20 a row the kernel leaves unwritten
    return x


def golden(values):
    values["y"][:] = values["x"]
    values["y"][0, 0] = 7  # the kernel copies 1: one mismatch, so the report shows its notes


result = run(fn=copy_kernel, specs=[TensorSpec("x", [64, 32], torch.int8, init_value=init_x),
                                    TensorSpec("y", [64, 32], torch.int8)],
             golden_fn=golden, config={"platform": "a2a3sim"})
print(result)
raise SystemExit(0 if result.passed else 1)
"""


def test_an_int8_output_the_kernel_wrote_with_the_poison_value_is_not_called_unwritten(host, tmp_path):
    # 0xA5 (-91) is the poison of a pure int8 Out and also a value kernels compute. y is only
    # written, so the dispatch knows which elements the kernel wrote: row 5, written with -91,
    # is not unwritten; row 17, never written, is, although it holds the -91 the golden expects.
    script = tmp_path / "int8_copy.py"
    script.write_text(INT8_COPY.replace("ROW_STEP", "16"))
    proc = host(script)
    assert proc.returncode == 1
    assert "    Mismatched elements: 1/2048  rtol=1e-05 atol=1e-05" in proc.stdout
    assert "never written" not in proc.stdout
    script.write_text(INT8_COPY.replace("ROW_STEP", "20"))
    proc = host(script)
    assert proc.returncode == 1
    # rows 16..19, 36..39 and 56..59 are unwritten; row 17 holds -91 as the golden expects
    assert "    Mismatched elements: 353/2048  rtol=1e-05 atol=1e-05" in proc.stdout
    assert "    never written: 384 of 2048 elements of 'y' (the first at index (16, 0))." in proc.stdout
    # Read back as well, y's writes are not tracked: the count is then of the elements holding
    # the poison where the golden expects something else, so row 17 is not among them.
    script.write_text(INT8_COPY.replace("ROW_STEP", "20").replace(
        "y[r : r + 16, :] = x[r : r + 16, :]",
        "y[r : r + 16, :] = pl.add(x[r : r + 16, :], pl.mul(y[r : r + 16, :], 0))"))
    proc = host(script)
    assert proc.returncode == 1
    assert "    never written: 352 of 2048 elements of 'y' (the first at index (16, 0))." in proc.stdout


# The same copy, with its rows written by an InCore function pl.spmd_submit launches on four
# blocks (rows 0..15, 20..35, 40..55, 60..63 as with ROW_STEP 20).
_head, _kernel_and_tail = INT8_COPY.split("@pl.jit\ndef copy_kernel", 1)
INT8_COPY_SPMD = _head + '''@pl.jit.incore
def copy_rows(x: pl.Tensor[[64, 32], pl.INT8], out: pl.Out[pl.Tensor[[64, 32], pl.INT8]]):
    r = pl.get_block_idx() * 20
    out[r : r + 16, :] = x[r : r + 16, :]
    return out


@pl.jit
def copy_kernel(x: pl.Tensor[[64, 32], pl.INT8], y: pl.Out[pl.Tensor[[64, 32], pl.INT8]]):
    y, _ = pl.spmd_submit(self.copy_rows, x, y, core_num=4)  # noqa: F821
    return y
''' + _kernel_and_tail.split("    return y\n", 1)[1]


def test_an_output_written_inside_an_incore_function_is_tracked_as_written(host, tmp_path):
    # The spliced InCore function's parameter and return value are bound to variables of
    # their own; y is still only written, so the report counts exactly the rows never
    # written (384, row 17 with its -91 included), as for the loop above.
    script = tmp_path / "int8_copy_spmd.py"
    script.write_text(INT8_COPY_SPMD)
    proc = host(script)
    assert proc.returncode == 1
    assert "    Mismatched elements: 353/2048  rtol=1e-05 atol=1e-05" in proc.stdout
    assert "    never written: 384 of 2048 elements of 'y' (the first at index (16, 0))." in proc.stdout


def test_kernel_leaving_part_of_a_pure_out_unwritten(host, tmp_path):
    # Row steps of 20 with 16-row tiles: rows 16..19, 36..39 and 56..59 are never written.
    # The last step, r = 60, covers rows 60..75 of 64: its window is clamped to the tensor, so
    # its 4 rows inside are read and written.
    script = write_kernel_script(tmp_path, row_step=20)
    proc = host(script)
    assert proc.returncode == 1
    assert "[RUN]   'y' FAIL  shape=(64, 32) dtype=torch.float32" in proc.stdout
    assert "    Mismatched elements: 384/2048  rtol=1e-05 atol=1e-05" in proc.stdout
    assert (
        "    never written: 384 of 2048 elements of 'y' (the first at index (16, 0)). A pure pl.Out is not "
        "uploaded, so it starts uninitialised on the device (poisoned on the simulator): write every element, "
        "or declare it pl.InOut (with an init_value). To reproduce hardware whose fresh buffers happen to be "
        "zero, run with PYPTO_SIM_OUT_INIT=zero. ("
    ) in proc.stdout
    zeroed = host(script, env=clean_env(tmp_path, PYPTO_SIM_OUT_INIT="zero"))
    assert zeroed.returncode == 1
    assert "never written" not in zeroed.stdout
    assert "    [512] actual=0.0, expected=" in zeroed.stdout


def test_kernel_writing_past_the_end_of_its_tensor(host, tmp_path):
    # The value is fully valid, so at r = 60 its rows 4..15 fall past the 64 rows of y.
    script = write_kernel_script(tmp_path, row_step=20)
    script.write_text(script.read_text().replace(
        "pl.add(x[r : r + 16, :], a)", "pl.add(pl.full([16, COLS], dtype=pl.FP32, value=1.0), a)"))
    proc = host(script)
    assert proc.returncode == 1
    assert "[RUN] runtime failed" in proc.stdout
    line = line_of(script, "y[r : r + 16, :] = pl.add")
    assert last_line(proc.stderr) == (
        f"golden.KernelError: {script}:{line}: y[r : r + 16, :] writes past the end of its tensor: axis 0 of the "
        "window (16, 32) has 4 inside the tensor, but the value written has 16 valid there (valid region (16, 32)); "
        "narrow it with pl.set_validshape, or slice the window inside the tensor (r=60)"
    )


def test_bad_out_init_variable(host, tmp_path):
    proc = host(write_kernel_script(tmp_path), env=clean_env(tmp_path, PYPTO_SIM_OUT_INIT="nan"))
    assert proc.returncode == 1
    assert last_line(proc.stderr) == "ValueError: PYPTO_SIM_OUT_INIT must be 'poison' or 'zero', got 'nan'"


def test_golden_leaving_an_output_that_is_not_a_tensor(host, tmp_path):
    script = write_kernel_script(
        tmp_path,
        main="def g(v):\n    v['y'] = 3\n\nfinish(run(fn=add_kernel, specs=specs(), golden_fn=g))\n",
    )
    proc = host(script)
    assert proc.returncode == 1
    assert last_line(proc.stderr) == (
        "golden.GoldenError: golden_fn left output 'y' as <class 'int'>; it must fill values['y'] with a torch.Tensor"
    )
