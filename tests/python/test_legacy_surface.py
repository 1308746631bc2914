"""What scripts written for the older harness and the full PyPTO package call around a run:
`golden.run(program=..., compile_cfg=..., runtime_cfg=...)` and run_jit's two dicts (keys
checked as pypto.ir.compile / execute_compiled / RunConfig check them), pypto.runtime's
TensorSpec, and the pypto.backend / pypto.ir / pto_isa names: importable, doing what PyPTO's
do where the simulator can, one clear error where it cannot."""

import pytest
import torch

import pypto.language as pl
from golden import run, run_jit
from golden import TensorSpec as GoldenTensorSpec

N = 16


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


@pl.program
class Twice:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            y[:] = pl.mul(x, 2.0)
        return y


@pl.jit
def twice(x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.mul(x, 2.0)
    return y


def golden(v):
    v["y"][:] = v["x"] * 2.0


def specs():
    # pypto.runtime's TensorSpec, as older scripts build them; the harness reads its fields.
    from pypto.runtime import TensorSpec
    return [TensorSpec("x", [N], torch.float32, init_value=torch.randn),
            TensorSpec("y", [N], torch.float32, is_output=True)]


RUNTIME = dict(platform="a2a3sim", device_id=0, enable_chip_swimlane=False, enable_dep_gen=False)


def test_run_program_with_compile_cfg_and_runtime_cfg(tmp_path):
    out = tmp_path / "kernels"
    result = run(program=Twice, specs=specs(), golden_fn=golden,
                 compile_cfg=dict(dump_passes=False, output_dir=str(out), skip_ptoas=True),
                 runtime_cfg=dict(RUNTIME), rtol=1e-6, atol=1e-6)
    assert result.passed, result.error
    assert result.work_dir == out  # output_dir is pypto.ir.compile's build directory


def test_run_jit_takes_run_config_fields_and_the_runtime_platform():
    result = run_jit(fn=twice, specs=[GoldenTensorSpec("x", [N], torch.float32, init_value=1.0),
                                      GoldenTensorSpec("y", [N], torch.float32)],
                     golden_fn=golden, compile_cfg=dict(dump_passes=False, platform="a5sim"),
                     runtime_cfg=dict(RUNTIME, level=2))
    assert result.passed, result.error


@pytest.mark.parametrize("call,error", [
    (lambda: run(program=Twice, specs=specs(), compile_cfg=dict(dump_pass=True), runtime_cfg=dict(RUNTIME)),
     "compile() got an unexpected keyword argument 'dump_pass'"),
    (lambda: run(program=Twice, specs=specs(), compile_cfg={}, runtime_cfg=dict(RUNTIME, ring_heap=4096)),
     "execute_compiled() got an unexpected keyword argument 'ring_heap'"),
    (lambda: run(program=Twice, specs=specs(), runtime_cfg=dict(platform="a2a3sim")),
     "execute_compiled() missing 1 required keyword-only argument: 'device_id'"),
    (lambda: run(program=Twice, specs=specs(), compile_cfg={}),
     "execute_compiled() missing 2 required keyword-only arguments: 'platform' and 'device_id'"),
    (lambda: run(program=Twice, specs=specs(), compile_cfg=dict(platform="a5sim"), runtime_cfg=dict(RUNTIME)),
     "'platform' is given in both compile_cfg and runtime_cfg with different values ('a5sim' and "
     "'a2a3sim')"),
    (lambda: run(program=Twice, specs=specs(), config={}, compile_cfg={}),
     "pass config= or the older compile_cfg= / runtime_cfg=, not both"),
    (lambda: run(program=Twice, specs=specs(), compile_cfg=[("dump_passes", False)], runtime_cfg=dict(RUNTIME)),
     "compile_cfg must be a dict, got list"),
    (lambda: run_jit(fn=twice, specs=specs(), compile_cfg=dict(output_dir="x"), runtime_cfg=dict(RUNTIME)),
     "RunConfig.__init__() got an unexpected keyword argument 'output_dir'"),
])
def test_keys_the_older_functions_would_not_take_are_type_errors(call, error):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == error


def test_pypto_runtime_tensor_spec_is_pypto_s():
    from pypto.runtime import TensorSpec
    spec = TensorSpec("a", [2, 3], torch.int32, init_value=5)
    assert (spec.is_output, spec.create_tensor().tolist()) == (False, [[5, 5, 5], [5, 5, 5]])
    assert TensorSpec("b", [2], torch.float32).create_tensor().tolist() == [0.0, 0.0]
    assert TensorSpec("c", [2], torch.float32, init_value=lambda: [1, 2]).create_tensor().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match=r"^Unsupported init_value type <class 'str'> for tensor 'd'$"):
        TensorSpec("d", [2], torch.float32, init_value="x").create_tensor()


def test_backend_type_is_set_once_per_process():
    from pypto import backend
    from pypto.backend import BackendType, set_backend_type
    backend.reset_for_testing()
    try:
        assert not backend.is_backend_configured()
        with pytest.raises(RuntimeError, match=r"^Backend type not configured\."):
            backend.get_backend_type()
        set_backend_type(BackendType.Ascend950)
        set_backend_type(BackendType.Ascend950)  # the same type again: allowed
        assert backend.get_backend_type() is BackendType.Ascend950
        with pytest.raises(RuntimeError) as info:
            set_backend_type(BackendType.Ascend910B)
        assert str(info.value) == "Backend type already set to Ascend950, cannot change to Ascend910B"
        with pytest.raises(TypeError) as info:
            set_backend_type("Ascend910B")
        assert str(info.value) == ("set_backend_type(): backend_type must be a pypto.backend.BackendType, "
                                   "got 'Ascend910B'")
    finally:
        backend.reset_for_testing()


def test_pypto_ir_helpers():
    from pypto.ir.compiled_program import CompiledProgram, _to_runtime_shape, _to_torch_dtype
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager
    from pypto.ir.printer import python_print
    from pypto.jit import CompiledProgram as JitCompiledProgram
    assert CompiledProgram is JitCompiledProgram
    assert (_to_torch_dtype(pl.BF16), _to_torch_dtype("int32"), _to_torch_dtype(pl.INDEX)) == (
        torch.bfloat16, torch.int32, None)
    assert _to_runtime_shape((4, -1), pl.FP16) == [4, -1]
    with pytest.raises(TypeError, match=r"^expected a pypto DataType \(or its name\), got 'fp64'$"):
        _to_torch_dtype("fp64")
    assert OptimizationStrategy.Default.value == "Default"
    with pytest.raises(NotImplementedError, match=r"^pypto.ir.pass_manager.PassManager: pypto-golden runs no "):
        PassManager.get_strategy(OptimizationStrategy.Default)
    with pytest.raises(NotImplementedError, match=r"^pypto.ir.printer.python_print\(\): pypto-golden builds no "):
        python_print(None, prefix="pl")


@pl.jit
def regions(x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
    for i in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            y[:] = pl.mul(x, 2.0)
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.add(y, 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        y[:] = pl.add(y, 1.0)
    return y


def test_lower_and_compiled_program_show_pypto_s_program_surface(tmp_path):
    import pypto.ir as ir
    x, y = torch.zeros(N), torch.zeros(N)
    lowered = regions.lower(x, y)
    # lower() builds nothing: no build directory appears.
    assert list(tmp_path.iterdir()) == []
    assert isinstance(lowered, ir.Program) and lowered.name == "regions"
    # The entry and one InCore function per pl.at region, named as PyPTO's outliner names them,
    # sorted by name.
    assert [(g.name, f.name, f.func_type) for g, f in lowered.functions.items()] == [
        ("regions", "regions", pl.FunctionType.Orchestration),
        ("regions_incore_1", "regions_incore_1", pl.FunctionType.InCore),
        ("scale", "scale", pl.FunctionType.InCore),
        ("scale_1", "scale_1", pl.FunctionType.InCore)]
    assert lowered.functions[ir.GlobalVar("regions")].param_names == ["x", "y"]
    assert lowered.get_function("scale_1").line == lowered.get_function("scale").line + 4
    assert lowered.get_global_var("nope") is None and lowered.get_function("nope") is None
    # compile() returns the same program, and it is still the simulator program's dict.
    compiled = regions.compile(x, y)
    assert compiled.program == lowered and compiled.program["entry"] == "regions"
    assert [f.name for f in compiled.program.functions.values()] == ["regions", "regions_incore_1", "scale",
                                                                      "scale_1"]
    # Signature mode, as compile.
    assert regions.lower().name == "regions"


@pytest.mark.parametrize("name", ["pto_isa_include_dir", "ensure_pto_isa_root"])
def test_pto_isa_is_an_error_when_used(name):
    import pypto.runtime
    with pytest.raises(RuntimeError) as info:
        getattr(pypto.runtime, name)()
    assert str(info.value) == (
        "pypto.runtime.%s(): pypto-golden has no PTO-ISA checkout; it simulates kernels instead of "
        "compiling them to C++, so kernels that need the PTO-ISA headers (pl.jit.extern C++ sources) "
        "cannot run on it" % name)


def test_an_l3_run_jit_filters_runtime_cfg_to_run_config_fields():
    # The public harness: for an L3 program runtime_cfg is filtered to RunConfig fields, and the
    # devices come from the distributed config, so device_id is not required.
    from golden import legacy_config
    from pypto.ir.distributed_compiled_program import DistributedConfig

    dc = DistributedConfig(device_ids=[0, 1])
    config = legacy_config.jit_config(dict(distributed_config=dc),
                                      dict(platform="a2a3sim", ring_heap=4096, level=3, not_a_field=1))
    assert config == {"distributed_config": dc, "platform": "a2a3sim", "ring_heap": 4096}
