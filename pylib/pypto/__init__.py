"""The bundled PyPTO frontend of pypto-golden: `pypto.language` (as `pl`), `pypto.runtime`
(RunConfig) and the JIT that compiles kernels to the simulator artifact (host/sim/IR.md)."""

from pypto import language  # noqa: F401
from pypto import runtime  # noqa: F401
from pypto.compiler.errors import (  # noqa: F401
    KernelCompileError, KernelArgumentError, KernelArgumentMismatchError,
)
