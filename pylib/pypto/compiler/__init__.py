"""The bundled compiler: kernel AST -> sim_program IR (host/sim/IR.md) -> build directory."""

from pypto.compiler.build_dir import create_build_dir, write_json_atomic, write_text_atomic
from pypto.compiler.errors import (  # noqa: F401
    KernelArgumentError, KernelArgumentMismatchError, KernelCompileError,
)
from pypto.compiler.ir_text import program_text
from pypto.compiler.kernel_source import KernelSource  # noqa: F401
from pypto.compiler.params import read_params  # noqa: F401
from pypto.compiler.splice import Callee  # noqa: F401
from pypto.compiler.statements import FunctionTranslator
from pypto.runtime.run_config import DistributedConfig

IR_FORMAT, IR_VERSION, META_SCHEMA = "pypto-golden-sim", 1, 1


def translate(kernel, spec, kind="orchestration", program=None, devices=None):
    """(program dict, number of returned values) for one specialisation. kind: the entry's
    function kind ("orchestration", "host" for a @pl.jit.host program, or a pl.FunctionType
    name for a @pl.program entry); devices: a host program's device ids."""
    tr = FunctionTranslator(kernel, spec, kind, program, devices)
    function = tr.function()
    program = {"format": IR_FORMAT, "version": IR_VERSION, "source_file": kernel.source_file,
               "entry": kernel.name, "functions": [function]}
    if kind == "host":
        function["level"] = "host"
        program["devices"] = list(devices)
    return program, tr.num_returns or 0


def host_devices(config):
    """The device ids a @pl.jit.host program runs on, one rank each: the distributed config's,
    else the single device of the run."""
    dc = config.distributed_config
    return list(dc.device_ids) if dc is not None else [config.device_id]


def distributed_meta(meta, config):
    """distributed_meta.json, as pypto writes it beside compiled_meta.json for an L3 program:
    the host program's parameters and the distributed config."""
    dc = config.distributed_config or DistributedConfig(device_ids=host_devices(config))
    fields = ("device_ids", "num_sub_workers", "runtime", "aicpu_thread_num")
    return dict(meta, distributed_config={f: getattr(dc, f) for f in fields})


def compiled_meta(spec, num_returns, platform, backend_type):
    """compiled_meta.json, schema 1, as pypto writes it: each parameter's name, direction,
    shape (-1 for a pl.dynamic dim, null for a scalar) and dtype, the number of returned
    values, the platform and the backend."""
    return {
        "schema": META_SCHEMA,
        "params": [{"name": p.name, "direction": p.direction,
                    "shape": ([-1 if d is None else d for d in p.shape]
                              if p.kind == "tensor" else None),
                    "dtype": p.dtype.name} for p in spec.params],
        "num_return_types": num_returns,
        "platform": platform,
        "backend_type": backend_type,
    }


def build(kernel, spec, config, kind="orchestration", owner=None, name=None):
    """Translate and write the build directory `<name>_<timestamp>` (name: the kernel's, or
    the @pl.program's); returns (output_dir, program, meta). Translation runs first so a
    kernel error leaves no directory behind."""
    devices = host_devices(config) if kind == "host" else None
    program, num_returns = translate(kernel, spec, kind, owner, devices)
    meta = compiled_meta(spec, num_returns, config.platform, config.backend_type)
    out = create_build_dir(name or kernel.name, config.save_kernels_dir)
    write_json_atomic(out / "compiled_meta.json", meta)
    if kind == "host":
        write_json_atomic(out / "distributed_meta.json", distributed_meta(meta, config))
    write_json_atomic(out / "sim_program.json", program, indent=1)
    if config.dump_passes:
        (out / "passes_dump").mkdir(exist_ok=True)
        write_text_atomic(out / "passes_dump" / "sim_program.txt", program_text(program))
    return out, program, meta
