"""The Python surface of `golden`: golden CPU threads, TensorSpec / ScalarSpec validation,
RunResult formatting, config normalisation and the argument checks of golden.run that
return or raise before the native core runs. Texts are pinned exactly: they are the
messages a user sees (README "Specs", "golden.run" and "Errors")."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import golden
import golden.runner
import golden.threads
from golden import RunResult, ScalarSpec, TensorSpec
from pypto.runtime import RunConfig

REPO = Path(__file__).resolve().parents[2]
EXT_DIR = Path(os.environ.get("PYPTO_GOLDEN_EXT_DIR") or REPO / "build" / "python")


# --------------------------------------------------------------------------------------
# PYPTO_GOLDEN_NUM_THREADS
# --------------------------------------------------------------------------------------


def test_thread_count_default_is_16():
    assert golden.threads.DEFAULT_GOLDEN_THREADS == 16
    assert golden.threads.golden_thread_count({}) == 16
    assert golden.threads.golden_thread_count({"OTHER": "3"}) == 16


@pytest.mark.parametrize("raw, expected", [("4", 4), ("1", 1), ("16", 16), ("320", 320)])
def test_thread_count_from_environment(raw, expected):
    assert golden.threads.golden_thread_count({"PYPTO_GOLDEN_NUM_THREADS": raw}) == expected


@pytest.mark.parametrize("raw", ["0", "-2", "abc", "", "1.5", "1_0", "+4", " 4 ", "\u0663"])
def test_thread_count_rejects_non_positive_or_non_integer(raw):
    with pytest.raises(ValueError) as info:
        golden.threads.golden_thread_count({"PYPTO_GOLDEN_NUM_THREADS": raw})
    assert str(info.value) == f"PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got {raw!r}"


@pytest.mark.parametrize("raw", ["65537", "3000000000", "99999999999999999999999"])
def test_thread_count_rejects_counts_no_machine_has(raw):
    with pytest.raises(ValueError) as info:
        golden.threads.golden_thread_count({"PYPTO_GOLDEN_NUM_THREADS": raw})
    assert str(info.value) == f"PYPTO_GOLDEN_NUM_THREADS must be at most 65536, got {raw!r}"
    assert golden.threads.golden_thread_count({"PYPTO_GOLDEN_NUM_THREADS": "65536"}) == 65536


def test_thread_count_message_quotes_the_raw_string():
    with pytest.raises(ValueError) as info:
        golden.threads.golden_thread_count({"PYPTO_GOLDEN_NUM_THREADS": "0"})
    assert str(info.value) == "PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got '0'"


def test_thread_count_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("PYPTO_GOLDEN_NUM_THREADS", "7")
    assert golden.threads.golden_thread_count() == 7
    monkeypatch.delenv("PYPTO_GOLDEN_NUM_THREADS")
    assert golden.threads.golden_thread_count() == 16


class _FakeTorch:
    def __init__(self):
        self.calls = []

    def set_num_threads(self, n):
        self.calls.append(n)


def test_configure_golden_threads_sets_torch_threads():
    fake = _FakeTorch()
    golden.threads.configure_golden_threads(fake, {"PYPTO_GOLDEN_NUM_THREADS": "5"})
    assert fake.calls == [5]
    fake = _FakeTorch()
    golden.threads.configure_golden_threads(fake, {})
    assert fake.calls == [16]


def test_configure_golden_threads_raises_before_touching_torch():
    fake = _FakeTorch()
    with pytest.raises(ValueError, match=r"^PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got '-2'$"):
        golden.threads.configure_golden_threads(fake, {"PYPTO_GOLDEN_NUM_THREADS": "-2"})
    assert fake.calls == []


def _import_golden(threads):
    env = dict(os.environ)
    env.pop("PYPTO_GOLDEN_NUM_THREADS", None)
    if threads is not None:
        env["PYPTO_GOLDEN_NUM_THREADS"] = threads
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "pylib"), str(EXT_DIR)])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-c", "import golden, torch; print(torch.get_num_threads())"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_import_sets_torch_threads_from_environment():
    proc = _import_golden("3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "3\n"


def test_import_sets_16_torch_threads_by_default():
    proc = _import_golden(None)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "16\n"


def test_import_fails_on_invalid_thread_count():
    proc = _import_golden("x")
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert proc.stderr.rstrip("\n").endswith(
        "ValueError: PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got 'x'"
    ), proc.stderr


# --------------------------------------------------------------------------------------
# ScalarSpec
# --------------------------------------------------------------------------------------


def _scalar_error(dtype, value):
    with pytest.raises(ValueError) as info:
        ScalarSpec("n", dtype, value)
    return str(info.value)


def test_scalar_supported_dtypes_in_order():
    assert golden.spec.SUPPORTED_SCALAR_DTYPES == [
        torch.int8,
        torch.int32,
        torch.int64,
        torch.uint8,
        torch.bool,
        torch.float32,
        torch.float16,
        torch.bfloat16,
    ]


def test_scalar_unsupported_dtype():
    assert _scalar_error(torch.float64, 1.0) == (
        "ScalarSpec 'n': unsupported dtype torch.float64; expected one of [torch.int8, torch.int32, "
        "torch.int64, torch.uint8, torch.bool, torch.float32, torch.float16, torch.bfloat16]"
    )


@pytest.mark.parametrize("dtype", [torch.int16, torch.float64, torch.complex64])
def test_scalar_other_unsupported_dtypes(dtype):
    assert _scalar_error(dtype, 1).startswith(f"ScalarSpec 'n': unsupported dtype {dtype}; expected one of [")


def test_scalar_tensor_value_must_be_0_dim():
    assert _scalar_error(torch.int32, torch.tensor([1, 2], dtype=torch.int32)) == (
        "ScalarSpec 'n': value tensor must be 0-dim, got shape (2,)"
    )


def test_scalar_tensor_value_dtype_must_match():
    assert _scalar_error(torch.int32, torch.tensor(1, dtype=torch.int64)) == (
        "ScalarSpec 'n': value tensor dtype torch.int64 does not match dtype field torch.int32"
    )


def test_scalar_int_dtype_rejects_float():
    assert _scalar_error(torch.int32, 1.5) == "ScalarSpec 'n' dtype=torch.int32 requires int value, got float"


def test_scalar_int_dtype_rejects_bool():
    assert _scalar_error(torch.int32, True) == "ScalarSpec 'n' dtype=torch.int32 requires int value, got bool"


def test_scalar_int8_out_of_range():
    assert _scalar_error(torch.int8, 300) == "ScalarSpec 'n' value 300 out of range for torch.int8 [-128, 127]"


def test_scalar_uint8_out_of_range():
    assert _scalar_error(torch.uint8, -1) == "ScalarSpec 'n' value -1 out of range for torch.uint8 [0, 255]"


@pytest.mark.parametrize("dtype, value", [(torch.int8, -128), (torch.int8, 127), (torch.uint8, 0), (torch.uint8, 255)])
def test_scalar_int_range_bounds_are_inclusive(dtype, value):
    spec = ScalarSpec("n", dtype, value)
    assert spec.value.item() == value


def test_scalar_bool_dtype_rejects_int():
    assert _scalar_error(torch.bool, 1) == "ScalarSpec 'n' dtype=torch.bool requires bool value, got int"


def test_scalar_float_dtype_rejects_bool():
    assert _scalar_error(torch.float32, True) == (
        "ScalarSpec 'n' dtype=torch.float32 requires int or float value, got bool"
    )


def test_scalar_float_dtype_rejects_non_number():
    assert _scalar_error(torch.float16, "1.0") == (
        "ScalarSpec 'n' dtype=torch.float16 requires int or float value, got str"
    )


@pytest.mark.parametrize(
    "dtype, value",
    [
        (torch.int8, -5),
        (torch.int32, 7),
        (torch.int64, 2**40),
        (torch.uint8, 200),
        (torch.bool, True),
        (torch.float32, 1.5),
        (torch.float32, 3),
        (torch.float16, 0.25),
        (torch.bfloat16, -2.0),
    ],
)
def test_scalar_value_stored_as_0_dim_tensor(dtype, value):
    spec = ScalarSpec("n", dtype, value)
    assert isinstance(spec.value, torch.Tensor)
    assert spec.value.dim() == 0
    assert spec.value.dtype == dtype
    assert spec.value.item() == value


def test_scalar_valid_tensor_value_is_used_as_is():
    t = torch.tensor(3, dtype=torch.int32)
    spec = ScalarSpec("n", torch.int32, t)
    assert spec.value is t


def test_scalar_to_python_has_device_precision():
    spec = ScalarSpec("a", torch.bfloat16, 0.1)
    assert spec.to_python() == 0.10009765625
    assert ScalarSpec("b", torch.int64, 12).to_python() == 12
    assert type(ScalarSpec("b", torch.int64, 12).to_python()) is int
    assert ScalarSpec("c", torch.bool, False).to_python() is False


def test_scalar_defaults():
    spec = ScalarSpec("n", torch.int32, 1)
    assert spec.name == "n"
    assert spec.dtype is torch.int32
    assert spec.compile_runtime is False
    assert spec.benchmark_step is None
    spec = ScalarSpec("m", torch.float32, 1.0, compile_runtime=True, benchmark_step=0.5)
    assert spec.compile_runtime is True
    assert spec.benchmark_step == 0.5


def test_scalar_positional_field_order():
    spec = ScalarSpec("n", torch.int32, 4, True, 2)
    assert (spec.name, spec.dtype, spec.value.item(), spec.compile_runtime, spec.benchmark_step) == (
        "n",
        torch.int32,
        4,
        True,
        2,
    )


# --------------------------------------------------------------------------------------
# TensorSpec
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 3), [2, 3], torch.Size([2, 3])])
def test_tensor_shape_normalised_to_list_of_ints(shape):
    spec = TensorSpec("x", shape, torch.float32)
    assert spec.shape == [2, 3]
    assert type(spec.shape) is list
    assert all(type(d) is int for d in spec.shape)


def test_tensor_shape_numpy_like_ints_become_ints():
    spec = TensorSpec("x", [torch.tensor(4), 5], torch.float32)
    assert spec.shape == [4, 5]
    assert all(type(d) is int for d in spec.shape)


def test_tensor_defaults():
    spec = TensorSpec("x", [4], torch.float16)
    assert spec.name == "x"
    assert spec.dtype is torch.float16
    assert spec.init_value is None
    assert spec.is_output is None
    assert spec.resident is None
    assert spec.is_resident is False


def test_tensor_resident_true_is_ambiguous():
    with pytest.raises(ValueError) as info:
        TensorSpec("x", [4], torch.float32, resident=True)
    assert str(info.value) == (
        "TensorSpec 'x': resident=True is ambiguous; pass an int worker id "
        '(e.g. resident=0 for whole-tensor on card 0) or resident="stacked".'
    )


def test_tensor_resident_negative_worker_id():
    with pytest.raises(ValueError) as info:
        TensorSpec("x", [4], torch.float32, resident=-1)
    assert str(info.value) == "TensorSpec 'x': resident worker id must be >= 0, got -1."


def test_tensor_resident_unknown_value():
    with pytest.raises(ValueError) as info:
        TensorSpec("x", [4], torch.float32, resident="foo")
    assert str(info.value) == (
        "TensorSpec 'x': resident must be None/False (off), an int worker id (whole-tensor resident "
        "on that card), or \"stacked\" (leading-dim sharded); got 'foo'."
    )


@pytest.mark.parametrize(
    "resident, expected",
    [(0, True), (3, True), ("stacked", True), (None, False), (False, False)],
)
def test_tensor_is_resident(resident, expected):
    spec = TensorSpec("x", [2, 4], torch.float32, resident=resident)
    assert spec.is_resident is expected
    assert spec.resident == resident


def test_tensor_resident_with_is_output_is_allowed():
    spec = TensorSpec("kv", [2, 4], torch.float32, is_output=True, resident=0)
    assert spec.is_output is True
    assert spec.is_resident is True


# --------------------------------------------------------------------------------------
# RunResult
# --------------------------------------------------------------------------------------


def test_run_result_str():
    assert str(RunResult(passed=True, execution_time=1.23)) == "PASS (1.23s)"
    assert str(RunResult(passed=False, error="boom", execution_time=0.5)) == "FAIL: boom (0.50s)"
    assert str(RunResult(passed=False)) == "FAIL"
    assert str(RunResult(passed=True, execution_time=0.0)) == "PASS (0.00s)"
    assert str(RunResult(passed=True, execution_time=None)) == "PASS"
    assert str(RunResult(passed=False, error="boom")) == "FAIL: boom"
    assert str(RunResult(passed=False, execution_time=2.0)) == "FAIL (2.00s)"


def test_run_result_fields_and_defaults():
    result = RunResult(passed=True)
    assert result.passed is True
    assert result.error is None
    assert result.execution_time is None
    assert result.work_dir is None
    assert result.bench is None


# --------------------------------------------------------------------------------------
# golden.runner._run_config
# --------------------------------------------------------------------------------------


def test_run_config_none_is_default():
    config, log_level = golden.runner._run_config(None)
    assert isinstance(config, RunConfig)
    assert config == RunConfig()
    assert config.platform == "a2a3sim"
    assert log_level is None


def test_run_config_dict_pops_log_level_without_mutating_caller():
    raw = {"platform": "a2a3sim", "device_id": 2, "log_level": "v3"}
    before = dict(raw)
    config, log_level = golden.runner._run_config(raw)
    assert raw == before
    assert isinstance(config, RunConfig)
    assert config.platform == "a2a3sim"
    assert config.device_id == 2
    assert log_level == "v3"


def test_run_config_dict_without_log_level():
    config, log_level = golden.runner._run_config({"device_id": 1})
    assert config == RunConfig(device_id=1)
    assert log_level is None


@pytest.mark.parametrize("level", ["debug", "info", "warn", "error", "null", "timing", "v0", "v9"])
def test_run_config_accepts_log_levels(level):
    _, log_level = golden.runner._run_config({"log_level": level})
    assert log_level == level


def test_run_config_unknown_key_is_type_error():
    with pytest.raises(TypeError) as info:
        golden.runner._run_config({"bogus": 1})
    assert "unexpected keyword argument 'bogus'" in str(info.value)


@pytest.mark.parametrize("level", ["loud", "v10", "INFO-ish"])
def test_run_config_invalid_log_level(level):
    with pytest.raises(ValueError) as info:
        golden.runner._run_config({"log_level": level})
    assert str(info.value).startswith("log_level must be one of [")
    assert str(info.value).endswith(f"got {level!r}")


def test_run_config_instance_passes_through():
    ready = RunConfig(device_id=5)
    config, log_level = golden.runner._run_config(ready)
    assert config is ready
    assert log_level is None


def test_run_config_rejects_other_types():
    with pytest.raises(TypeError) as info:
        golden.runner._run_config([("platform", "a2a3sim")])
    assert str(info.value) == "config must be a dict of RunConfig fields or a RunConfig, got list"


# --------------------------------------------------------------------------------------
# golden.run: checks made before the native core runs
# --------------------------------------------------------------------------------------


class _NotAKernel:
    """Stands in for a kernel; any use by the native core would fail loudly."""


def test_run_compile_only_with_runtime_dir_is_failed_result(tmp_path):
    result = golden.run(fn=_NotAKernel(), specs=[], compile_only=True, runtime_dir=str(tmp_path))
    assert isinstance(result, RunResult)
    assert (result.passed, result.error, result.validated) == (False, "runtime_dir is incompatible with compile_only",
                                                               False)
    assert 0 <= result.execution_time < 1  # measured, like every other result
    assert result.work_dir == tmp_path  # the build it was asked to use
    assert re.fullmatch(r"FAIL: runtime_dir is incompatible with compile_only \(\d+\.\d\ds\)", str(result))


def test_str_of_a_result_says_when_nothing_was_validated():
    assert str(RunResult(passed=True, execution_time=0.5)) == "PASS (0.50s)"
    assert str(RunResult(passed=True, execution_time=0.5, validated=False)) == "PASS (0.50s, validation skipped)"
    assert str(RunResult(passed=True, validated=False)) == "PASS (validation skipped)"
    assert str(RunResult(passed=False, error="x", execution_time=1.0, validated=False)) == "FAIL: x (1.00s)"


def test_run_without_kernel_is_type_error():
    with pytest.raises(TypeError) as info:
        golden.run(specs=[])
    assert str(info.value) == "run() needs the kernel: run(fn=<@pl.jit function>, specs=[...])"


def test_run_compare_fn_must_be_dict():
    with pytest.raises(TypeError) as info:
        golden.run(fn=_NotAKernel(), specs=[], compare_fn=[lambda a, b: True])
    assert str(info.value) == "compare_fn must be a dict of output name -> comparator, got list"


def test_run_fn_and_program_together_is_type_error():
    with pytest.raises(TypeError) as info:
        golden.run(fn=_NotAKernel(), specs=[], program=_NotAKernel())
    assert str(info.value) == "pass the kernel as fn= or program=, not both"


def test_run_program_is_keyword_only():
    with pytest.raises(TypeError, match="positional argument"):
        golden.run(_NotAKernel(), [], None, None, 1e-5, 1e-5, None, False, None, False, None, _NotAKernel())


# --------------------------------------------------------------------------------------
# Exceptions
# --------------------------------------------------------------------------------------


def test_exception_hierarchy():
    assert issubclass(golden.SpecError, ValueError)
    assert issubclass(golden.KernelError, RuntimeError)
    assert issubclass(golden.ArtifactError, RuntimeError)
    assert issubclass(golden.DeviceUnavailableError, RuntimeError)
    assert issubclass(golden.ProgramError, golden.ArtifactError)
    assert issubclass(golden.ProgramError, RuntimeError)
    assert not issubclass(golden.SpecError, RuntimeError)
    assert not issubclass(golden.KernelError, ValueError)


@pytest.mark.parametrize(
    "name",
    ["SpecError", "KernelError", "ArtifactError", "ProgramError", "DeviceUnavailableError", "ArgumentError",
     "GoldenError"],
)
def test_exceptions_exported_from_golden(name):
    cls = getattr(golden, name)
    assert isinstance(cls, type)
    assert issubclass(cls, Exception)
    assert cls.__module__ == "golden"
    assert cls.__name__ == name
    assert name in golden.__all__
    assert getattr(golden.errors, name) is cls


def test_exceptions_can_be_raised_and_caught():
    with pytest.raises(golden.ArtifactError, match="^bad dir$"):
        raise golden.ProgramError("bad dir")
    with pytest.raises(ValueError, match="^bad spec$"):
        raise golden.SpecError("bad spec")


def test_public_names():
    for name in ("TensorSpec", "ScalarSpec", "run", "run_jit", "RunResult"):
        assert name in golden.__all__
        assert hasattr(golden, name)
    assert golden.TensorSpec is golden.spec.TensorSpec
    assert golden.ScalarSpec is golden.spec.ScalarSpec
    assert golden.RunResult is golden.result.RunResult
    assert golden.run is golden.runner.run


def test_tensor_resident_accepts_numpy_like_integers():
    import numpy

    assert TensorSpec("kv", [2], torch.float32, resident=numpy.int64(1)).is_resident


def test_run_checks_config_before_the_compile_only_rule():
    with pytest.raises(ValueError):
        golden.run(fn=object(), specs=[], config={"log_level": "loud"}, compile_only=True, runtime_dir="d")


def test_tensor_spec_create_tensor_follows_the_public_harness():
    # Scripts call it to build their own inputs: zeros, a constant, a tensor (the same object
    # when it has the dtype), a torch factory called with the shape, a callable's result.
    assert TensorSpec("a", [2, 3], torch.float32).create_tensor().tolist() == [[0.0] * 3] * 2
    assert TensorSpec("b", [2], torch.int32, init_value=7).create_tensor().tolist() == [7, 7]
    given = torch.ones(2, dtype=torch.float32)
    assert TensorSpec("c", [2], torch.float32, init_value=given).create_tensor() is given
    assert TensorSpec("d", [4, 5], torch.bfloat16, init_value=torch.randn).create_tensor().shape == (4, 5)
    made = TensorSpec("e", [2], torch.int64, init_value=lambda: [3, 4]).create_tensor()
    assert (made.dtype, made.tolist()) == (torch.int64, [3, 4])
    with pytest.raises(TypeError) as info:
        TensorSpec("f", [2], torch.float32, init_value="x").create_tensor()
    assert str(info.value) == "Unsupported init_value type <class 'str'> for tensor 'f'"
