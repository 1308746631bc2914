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

IR_FORMAT, IR_VERSION, META_SCHEMA = "pypto-golden-sim", 1, 1


def translate(kernel, spec, kind="orchestration", program=None):
    """(program dict, number of returned values) for one specialisation. kind: the entry's
    function kind ("orchestration", or a pl.FunctionType name for a @pl.program entry)."""
    tr = FunctionTranslator(kernel, spec, kind, program)
    function = tr.function()
    program = {"format": IR_FORMAT, "version": IR_VERSION, "source_file": kernel.source_file,
               "entry": kernel.name, "functions": [function]}
    return program, tr.num_returns or 0


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
    program, num_returns = translate(kernel, spec, kind, owner)
    meta = compiled_meta(spec, num_returns, config.platform, config.backend_type)
    out = create_build_dir(name or kernel.name, config.save_kernels_dir)
    write_json_atomic(out / "compiled_meta.json", meta)
    write_json_atomic(out / "sim_program.json", program, indent=1)
    if config.dump_passes:
        (out / "passes_dump").mkdir(exist_ok=True)
        write_text_atomic(out / "passes_dump" / "sim_program.txt", program_text(program))
    return out, program, meta
