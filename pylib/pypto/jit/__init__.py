"""The `@pl.jit` machinery: JITFunction (specialise + cache) and CompiledProgram (dispatch)."""

from pypto.jit.decorator import jit  # noqa: F401
from pypto.jit.function import JITFunction  # noqa: F401
from pypto.jit.compiled_program import CompiledProgram  # noqa: F401
from pypto.compiler.errors import (  # noqa: F401
    KernelCompileError, KernelArgumentError, KernelArgumentMismatchError,
)
from pypto.jit.program import Program, program, function  # noqa: F401,E402
