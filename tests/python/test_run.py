"""golden.run in-process through the extension module: stages, specs, init values, comparators."""

import re

import pytest
import torch

import golden
import pypto.language as pl
from golden import ScalarSpec, TensorSpec, run, run_jit

N = 32


@pl.jit
def scale_add(
    x: pl.Tensor[[N, N], pl.FP32],
    a: pl.Scalar[pl.FP32],
    acc: pl.InOut[pl.Tensor[[N, N], pl.FP32]],
    y: pl.Out[pl.Tensor[[N, N], pl.FP32]],
):
    for r in pl.parallel(0, N, 8):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="blk"):
            y[r : r + 8, :] = pl.add(x[r : r + 8, :], a)
            acc[r : r + 8, :] = pl.add(acc[r : r + 8, :], x[r : r + 8, :])
    return y


def specs(x_init=torch.randn, acc_init=1.0, y_init=None, **extra):
    return [
        TensorSpec("x", [N, N], torch.float32, init_value=x_init),
        ScalarSpec("a", torch.float32, 0.5),
        TensorSpec("acc", [N, N], torch.float32, init_value=acc_init, **extra),
        TensorSpec("y", [N, N], torch.float32, init_value=y_init),
    ]


def golden_fn(v):
    v["y"][:] = v["x"] + v["a"]
    v["acc"][:] = v["acc"] + v["x"]


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    for knob in ("PYPTO_SIM_THREADS", "PYPTO_SIM_SHUFFLE", "PYPTO_SIM_OUT_INIT", "PYPTO_SIM_NAN_CHECK",
                 "PYPTO_GOLDEN_MEMORY_LIMIT"):
        monkeypatch.delenv(knob, raising=False)


def lines(capsys):
    return [re.sub(r" \(\d+\.\d\ds\)", "", line) for line in capsys.readouterr().out.splitlines()]


def test_in_out_and_pure_out_are_validated(capsys):
    result = run(fn=scale_add, specs=specs(), golden_fn=golden_fn)
    assert result.passed and result.error is None
    assert result.work_dir.is_dir() and result.execution_time > 0 and result.bench is None
    assert lines(capsys) == [
        "[RUN] compile ...", "[RUN] compile done",
        "[RUN] generate inputs ...", "[RUN] generate inputs done",
        "[RUN] compute golden ...", "[RUN] compute golden done",
        "[RUN] runtime ...", "[RUN] runtime done",
        "[RUN] validate ...",
        "[RUN]   'acc' PASS  shape=(32, 32) dtype=torch.float32",
        "[RUN]   'y' PASS  shape=(32, 32) dtype=torch.float32",
        "[RUN] validate done",
        "[RUN] PASS",
    ]


def test_an_out_init_value_reaches_only_the_golden():
    seen = {}

    def golden_keeps_init(v):
        seen["y"] = v["y"].clone()
        golden_fn(v)

    assert run(fn=scale_add, specs=specs(y_init=7.0), golden_fn=golden_keeps_init).passed
    assert torch.all(seen["y"] == 7.0)


def test_no_golden_skips_validation(capsys):
    result = run(fn=scale_add, specs=specs())
    assert result.passed
    out = capsys.readouterr().out.splitlines()
    assert "[RUN] validate ..." not in out
    assert re.fullmatch(r"\[RUN\] PASS \(\d+\.\d\ds, validation skipped: no golden_fn or golden_data\)", out[-1])
    assert not result.validated
    assert re.fullmatch(r"PASS \(\d+\.\d\ds, validation skipped\)", str(result))
    assert run(fn=scale_add, specs=specs(), golden_fn=golden_fn).validated
    assert not run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compile_only=True).validated


def test_compile_only_stops_after_compile(capsys):
    result = run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compile_only=True)
    assert result.passed and result.work_dir.is_dir()
    assert lines(capsys) == ["[RUN] compile ...", "[RUN] compile done", "[RUN] PASS"]


def test_every_failing_output_is_reported_once():
    def wrong(v):
        v["y"][:] = v["x"]
        v["acc"][:] = 0

    result = run(fn=scale_add, specs=specs(), golden_fn=wrong)
    assert not result.passed
    assert result.error.startswith("Output(s) does not match golden: ['acc', 'y']\n  'acc' FAIL  shape=(32, 32)")
    assert result.error.count("Mismatched elements: 1024/1024  rtol=1e-05 atol=1e-05") == 2
    assert str(result).startswith("FAIL: Output(s) does not match golden") and str(result).endswith("s)")


def test_tolerances_are_the_runs():
    def off_by_a_little(v):
        golden_fn(v)
        v["y"][:] += 1e-3

    assert not run(fn=scale_add, specs=specs(), golden_fn=off_by_a_little).passed
    assert run(fn=scale_add, specs=specs(), golden_fn=off_by_a_little, rtol=0, atol=2e-3).passed


def test_custom_comparators(capsys):
    calls = {}

    def always_ok(actual, expected, *, actual_outputs, expected_outputs, inputs, rtol, atol):
        calls.update(outputs=sorted(actual_outputs), inputs=sorted(inputs), rtol=rtol, a=inputs["a"].item())
        return True, ""

    def strict(actual, expected, **kw):
        return False, "    strict says no"

    def explodes(actual, expected, **kw):
        raise ValueError("bad comparator")

    def wrong_shape(actual, expected, **kw):
        return True

    result = run(fn=scale_add, specs=specs(), golden_fn=golden_fn,
                 compare_fn={"acc": always_ok, "y": strict})
    assert calls == {"outputs": ["acc", "y"], "inputs": ["a", "x"], "rtol": 1e-5, "a": 0.5}
    assert "[RUN]   'acc' PASS  shape=(32, 32) dtype=torch.float32 (always_ok)" in capsys.readouterr().out
    assert result.error == ("Output(s) does not match golden: ['y']\n"
                            "  'y' FAIL (strict)  shape=(32, 32) dtype=torch.float32\n    strict says no")
    raised = run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compare_fn={"y": explodes})
    assert raised.error.endswith("  'y' FAIL (explodes)  shape=(32, 32) dtype=torch.float32\n"
                                 "    comparator explodes raised ValueError: bad comparator")
    shaped = run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compare_fn={"y": wrong_shape})
    assert shaped.error.endswith(
        "    comparator wrong_shape returned True; a comparator must return (ok: bool, detail: str)")

    def ambiguous(actual, expected, **kw):
        return actual == expected, "elementwise"

    vague = run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compare_fn={"y": ambiguous})
    assert vague.error.endswith("    comparator ambiguous raised RuntimeError: Boolean value of Tensor with more "
                                "than one value is ambiguous")


def test_compare_fn_entries_naming_no_output_are_an_error(capsys):
    def cmp(actual, expected, **kw):
        return True, ""

    with pytest.raises(golden.SpecError) as info:
        run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compare_fn={"y": cmp, "x": cmp, "yy": cmp, "a": cmp})
    assert str(info.value) == ("compare_fn names 'x' (an In tensor), 'yy' (no such parameter), 'a' (a scalar), which "
                               "are not outputs of kernel 'scale_add'; its outputs are 'acc', 'y'")
    assert "[RUN] generate inputs" not in capsys.readouterr().out  # refused right after compile
    with pytest.raises(golden.SpecError) as info:
        run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compare_fn={3: cmp})
    assert str(info.value) == ("compare_fn names 3 (not a name), which is not an output of kernel 'scale_add'; "
                               "its outputs are 'acc', 'y'")


def test_validate_golden_checks_dicts_as_run_does(capsys):
    y = torch.arange(4.0)
    golden.validate_golden({"y": y}, {"y": y.clone()})
    assert capsys.readouterr().out == "[RUN]   'y' PASS  shape=(4,) dtype=torch.float32\n"
    with pytest.raises(AssertionError) as info:
        golden.validate_golden({"y": y, "z": y}, {"y": y + 1, "z": y}, rtol=0, atol=0.5)
    assert str(info.value).startswith("Output(s) does not match golden: ['y']\n"
                                      "  'y' FAIL  shape=(4,) dtype=torch.float32\n"
                                      "    Mismatched elements: 4/4  rtol=0.0 atol=0.5\n")
    with pytest.raises(KeyError):
        golden.validate_golden({"y": y}, {"q": y})
    seen = {}

    def cmp(actual, expected, *, actual_outputs, expected_outputs, inputs, rtol, atol):
        seen.update(inputs=sorted(inputs), n=inputs["n"].item(), outputs=sorted(actual_outputs))
        return False, "    cmp says no"

    with pytest.raises(AssertionError) as info:
        golden.validate_golden({"y": y}, {"y": y}, compare_fn={"y": cmp}, inputs={"x": y, "n": 3})
    assert str(info.value) == ("Output(s) does not match golden: ['y']\n"
                               "  'y' FAIL (cmp)  shape=(4,) dtype=torch.float32\n    cmp says no")
    assert seen == {"inputs": ["n", "x"], "n": 3, "outputs": ["y"]}
    with pytest.raises(golden.SpecError) as info:
        golden.validate_golden({"y": y}, {"y": y}, compare_fn={"x": cmp}, inputs={"x": y})
    assert str(info.value) == ("compare_fn names 'x' (an In tensor), which is not an output of this validate_golden "
                               "call; its outputs are 'y'")


def test_init_values():
    given = torch.full((N, N), 2.0, dtype=torch.float64)
    seen = {}

    def capture(v):
        seen.update({k: t.clone() for k, t in v.items() if isinstance(t, torch.Tensor)})
        golden_fn(v)

    assert run(fn=scale_add, specs=specs(x_init=given, acc_init=lambda: [[3.0] * N] * N), golden_fn=capture).passed
    assert seen["x"].dtype == torch.float32 and torch.all(seen["x"] == 2.0)
    assert torch.all(seen["acc"] == 3.0)
    assert torch.all(given == 2.0)  # the caller's tensor is never written


@pl.jit
def int_copy(x: pl.Tensor[[N, N], pl.INT32], y: pl.Out[pl.Tensor[[N, N], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:, :] = x[:, :]
    return y


ROWS = pl.dynamic("ROWS")


@pl.jit
def row_copy(x: pl.Tensor[[ROWS, N], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:, :] = x[:, :]
    return y


def test_an_init_value_tensor_of_another_shape_than_its_spec_wins_with_a_warning(capsys):
    # As in the public harness, the tensor is used as it is; the spec's shape is named.
    result = run(fn=row_copy, specs=[TensorSpec("x", [N, N], torch.float32, init_value=torch.randn(8, N)),
                                     TensorSpec("y", [8, N], torch.float32)],
                 golden_fn=lambda v: v["y"].copy_(v["x"]))
    assert result.passed, result.error
    assert ("[RUN]   warning: TensorSpec 'x': its init_value tensor has shape (8, 32) but the spec says (32, 32); "
            "the run uses the tensor's shape, as the public harness does") in capsys.readouterr().out


def test_init_value_errors():
    # A tensor the kernel cannot take is the kernel's argument error.
    with pytest.raises(golden.SpecArgumentMismatchError) as info:
        run(fn=scale_add, specs=specs(x_init=torch.zeros(3)), golden_fn=golden_fn)
    assert str(info.value).endswith("parameter 'x': annotated shape [32, 32] but the tensor passed has shape [3]")
    with pytest.raises(TypeError, match=r"^Unsupported init_value type <class 'str'> for tensor 'x'$"):
        run(fn=scale_add, specs=specs(x_init="zeros"), golden_fn=golden_fn)
    with pytest.raises(golden.SpecError) as info:
        run(fn=int_copy, specs=[TensorSpec("x", [N, N], torch.int32, init_value=torch.rand),
                                TensorSpec("y", [N, N], torch.int32)])
    assert str(info.value) == ("TensorSpec 'x': init_value=torch.rand draws floating-point values, but the spec's "
                               "dtype is torch.int32: give the spec a floating-point dtype, or an init_value callable "
                               "that makes integers (torch.randint(low, high, shape, dtype=...))")


def test_is_output_contradiction_is_a_warning(capsys):
    assert run(fn=scale_add, specs=specs(is_output=False), golden_fn=golden_fn).passed
    assert ("[RUN]   warning: TensorSpec 'acc' has is_output=False but the kernel declares it InOut; "
            "using the kernel's direction") in capsys.readouterr().out


def test_is_output_with_an_init_value_on_a_pure_out_warns_it_reaches_only_the_golden(capsys):
    seen = {}

    def capture(v):
        seen["y"] = v["y"].clone()
        golden_fn(v)

    assert run(fn=scale_add, specs=[*specs()[:3], TensorSpec("y", [N, N], torch.float32, init_value=5.0,
                                                             is_output=True)], golden_fn=capture).passed
    assert ("[RUN]   warning: TensorSpec 'y' has is_output=True and an init_value, which the older harness uploaded "
            "to the kernel; the kernel declares it Out, so the init_value reaches only the golden (declare it "
            "pl.InOut for the kernel to start from it)") in capsys.readouterr().out
    assert torch.all(seen["y"] == 5.0)
    assert run(fn=scale_add, specs=[*specs()[:3], TensorSpec("y", [N, N], torch.float32, is_output=True)],
               golden_fn=golden_fn).passed
    assert "warning" not in capsys.readouterr().out  # no init_value: nothing to warn about


def test_a_replay_with_another_value_of_a_specialised_scalar_warns(capsys):
    build = run(fn=scale_add, specs=specs(), golden_fn=golden_fn, compile_only=True).work_dir
    capsys.readouterr()
    changed = [*specs()[:1], ScalarSpec("a", torch.float32, 6.0), *specs()[2:]]
    result = run(fn=scale_add, specs=changed, golden_fn=golden_fn, runtime_dir=build)
    assert not result.passed  # the kernel adds the 0.5 it was compiled with, the golden 6.0
    out = capsys.readouterr().out
    assert (f"[RUN]   warning: ScalarSpec 'a' is 6.0, but the build {build} was specialised on a=0.5: the kernel "
            "runs with 0.5 (compiled in); recompile, or give the scalar compile_runtime=True") in out
    assert run(fn=scale_add, specs=specs(), golden_fn=golden_fn, runtime_dir=build).passed
    assert "warning" not in capsys.readouterr().out


def test_specs_that_do_not_fit_the_signature_are_spec_errors_of_the_kernel_error_classes():
    from pypto.compiler.errors import KernelArgumentError, KernelArgumentMismatchError

    with pytest.raises(golden.SpecError) as info:
        run(fn=scale_add, specs=[TensorSpec("x", [N, N], torch.int32), *specs()[1:]], golden_fn=golden_fn)
    assert isinstance(info.value, KernelArgumentMismatchError) and isinstance(info.value, ValueError)
    assert type(info.value).__name__ == "SpecArgumentMismatchError"
    assert info.value.line is not None  # the attributes carry over
    assert info.value.__traceback__ is not None
    assert issubclass(golden.SpecArgumentError, KernelArgumentError) and issubclass(golden.SpecArgumentError, TypeError)
    assert issubclass(golden.SpecArgumentError, golden.SpecError)


def test_run_jit_adapter_for_older_scripts():
    result = run_jit(fn=scale_add, specs=specs(), golden_fn=golden_fn,
                     runtime_cfg={"platform": "a2a3sim", "device_id": 0}, compile_cfg={})
    assert result.passed


def test_results_do_not_depend_on_thread_count_or_order(monkeypatch):
    for threads, shuffle in (("1", "0"), ("2", "1"), ("4", "yes")):
        monkeypatch.setenv("PYPTO_SIM_THREADS", threads)
        monkeypatch.setenv("PYPTO_SIM_SHUFFLE", shuffle)
        assert run(fn=scale_add, specs=specs(x_init=torch.ones(N, N)), golden_fn=golden_fn).passed


def test_a_run_that_cannot_fit_in_memory_is_refused_before_it_allocates(monkeypatch, capsys):
    # x (In), acc (InOut) and y (Out) are 32x32 fp32: the input is held once, the outputs twice.
    monkeypatch.setenv("PYPTO_GOLDEN_MEMORY_LIMIT", "16K")
    result = run(fn=scale_add, specs=specs(), golden_fn=golden_fn)
    assert not result.passed
    assert result.error == (
        "not enough memory for this run: its tensors need at least 20.0 KiB (4.0 KiB of In tensors, held once, "
        "and 8.0 KiB of Out / InOut tensors, held twice: the kernel's result and the golden's) but 16.0 KiB is "
        "available (PYPTO_GOLDEN_MEMORY_LIMIT); the run was not started")
    assert "[RUN] generate inputs failed" in lines(capsys)
    monkeypatch.setenv("PYPTO_GOLDEN_MEMORY_LIMIT", "1M")
    assert run(fn=scale_add, specs=specs(), golden_fn=golden_fn).passed
    monkeypatch.setenv("PYPTO_GOLDEN_MEMORY_LIMIT", "lots")
    with pytest.raises(ValueError) as info:
        run(fn=scale_add, specs=specs(), golden_fn=golden_fn)
    assert str(info.value) == ("PYPTO_GOLDEN_MEMORY_LIMIT must be a positive byte count, optionally with a K, M, G "
                               "or T suffix (e.g. 16G), got 'lots'")


def test_an_init_value_tensor_of_the_specs_dtype_is_shared_not_held_again(monkeypatch):
    # The script holds x already: a run shares it copy-on-write, so its 4 KiB are not
    # counted (16 KiB for acc and y, held twice), and neither the kernel nor the golden
    # writes into the caller's tensors, the InOut acc's included.
    monkeypatch.setenv("PYPTO_GOLDEN_MEMORY_LIMIT", "16K")
    x, acc = torch.randn(N, N), torch.full((N, N), 1.0)
    kept_x, kept_acc = x.clone(), acc.clone()
    assert run(fn=scale_add, specs=specs(x_init=x, acc_init=acc), golden_fn=golden_fn).passed
    assert torch.equal(x, kept_x) and torch.equal(acc, kept_acc)
    # A tensor that must be converted (float64) is a copy, and counted.
    result = run(fn=scale_add, specs=specs(x_init=x.double(), acc_init=acc), golden_fn=golden_fn)
    assert result.error.startswith("not enough memory for this run: its tensors need at least 20.0 KiB (4.0 KiB "
                                   "of In tensors, held once,"), result.error


def test_an_init_value_the_allocator_refuses_ends_the_run_with_its_size(capsys):
    # 1 PiB: beyond the address space, so refused even where memory is overcommitted.
    result = run(fn=scale_add, specs=specs(x_init=lambda: torch.empty(2**50, dtype=torch.uint8)),
                 golden_fn=golden_fn)
    assert not result.passed
    assert result.error == ("not enough memory for this run: TensorSpec 'x': its init_value callable tried to "
                            "allocate 1024.0 TiB and the allocator refused; the run was not started")
    assert "[RUN] generate inputs failed" in lines(capsys)


def test_runtime_scalar_compiles_in_signature_mode():
    scalar_specs = specs()
    scalar_specs[1] = ScalarSpec("a", torch.float32, 0.5, compile_runtime=True)
    result = run(fn=scale_add, specs=scalar_specs, golden_fn=golden_fn)
    assert result.passed
    import json

    program = json.loads((result.work_dir / "sim_program.json").read_text())
    assert program["functions"][0]["params"][1]["runtime"] is True


@pl.jit
def writes_its_input(x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="oops"):
        x[0:8, :] = pl.add(x[0:8, :], 1.0)
        y[:, :] = pl.add(x[:, :], 0.0)
    return y


def test_a_kernel_writing_an_in_parameter_is_reported(capsys):
    result = run(fn=writes_its_input, specs=[TensorSpec("x", [N, N], torch.float32),
                                             TensorSpec("y", [N, N], torch.float32)])
    assert result.passed
    assert ("[RUN]   warning: kernel 'writes_its_input' wrote its In parameter 'x'; on the device that write is "
            "lost (declare it pl.InOut to keep it)") in capsys.readouterr().out.splitlines()
    x, y = torch.zeros(N, N), torch.zeros(N, N)
    with pytest.warns(UserWarning, match=r"^kernel 'writes_its_input' wrote its In parameter 'x'; on the device"):
        writes_its_input(x, y)
    assert torch.all(x == 0)  # the host copy of an In parameter is never written
    assert torch.all(y[0:8] == 1) and torch.all(y[8:] == 0)


@pl.jit
def copies_its_input(x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        y[:, :] = pl.add(x[:, :], 0.0)
    return y


def test_an_in_parameter_holding_nan_is_not_reported_as_written(recwarn):
    # The check compares bytes: NaN != NaN must not read as "the kernel wrote it".
    x = torch.randn(N, N)
    x[::3] = float("nan")
    y = torch.zeros(N, N)
    copies_its_input(x, y)
    assert torch.equal(y.isnan(), x.isnan())
    assert [str(w.message) for w in recwarn if "wrote its In parameter" in str(w.message)] == []


@pl.jit
def shifts_rows_down(x: pl.InOut[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shift"):
        x[1:N, :] = x[0 : N - 1, :]
    return x


def test_a_write_overlapping_its_value_reads_the_value_first():
    x = torch.arange(N * N, dtype=torch.float32).reshape(N, N)
    expect = torch.cat([x[:1], x[:-1]])
    shifts_rows_down(x)
    assert torch.equal(x, expect)


def test_calling_a_compiled_program_on_hardware_platforms_names_the_simulator():
    from pypto.runtime import RunConfig

    x, y = torch.zeros(N, N), torch.zeros(N, N)
    prog = writes_its_input.compile(x, y)
    with pytest.raises(golden.DeviceUnavailableError) as err:
        prog(x, y, config=RunConfig(platform="a5"))
    assert str(err.value) == ("platform 'a5' needs an Ascend NPU runtime (CANN and a device), which this machine "
                              "does not have; run on the simulator with -p a5sim")


@pl.jit
def takes_a_root_of_negatives(x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="roots"):
        shifted = pl.sub(x[:, :], 2.0)
        y[:, :] = pl.sqrt(shifted)
    return y


def test_nan_check_names_the_op_that_first_makes_a_nan(monkeypatch):
    x_spec = [TensorSpec("x", [N, N], torch.float32, init_value=torch.arange(N * N, dtype=torch.float32).reshape(N, N)),
              TensorSpec("y", [N, N], torch.float32)]
    assert not run(fn=takes_a_root_of_negatives, specs=x_spec,
                   golden_fn=lambda v: v["y"].copy_((v["x"] - 2).sqrt())).passed  # NaN is never equal
    monkeypatch.setenv("PYPTO_SIM_NAN_CHECK", "1")
    with pytest.raises(golden.KernelError) as info:
        run(fn=takes_a_root_of_negatives, specs=x_spec)
    line = open(__file__).read().splitlines().index("        y[:, :] = pl.sqrt(shifted)") + 1
    assert str(info.value) == ("%s:%d: pl.sqrt produced NaN at index (0, 0) of its (32, 32) result from inputs that "
                               "are all finite (PYPTO_SIM_NAN_CHECK)" % (__file__, line))
