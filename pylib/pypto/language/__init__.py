"""`import pypto.language as pl`: the PyPTO DSL surface understood by the bundled frontend."""

from pypto.language.dtypes import (  # noqa: F401
    DataType, FP32, FP16, BF16, FP8E4M3FN, FP8E5M2, FP8E8M0, INT8, INT16, INT32, INT64,
    UINT8, UINT16, UINT32, UINT64, BOOL, INDEX, TASK_ID,
)
from pypto.language.enums import *  # noqa: F401,F403  (PadValue, AtomicType, ...)
from pypto.language.types import (  # noqa: F401
    DynVar, dynamic, Tensor, TensorType, Tile, TileType, Scalar, ScalarType, Out, InOut,
    DirectionType, RUNTIME, Level, FunctionType, Array, ArrayType, TaskId,
)
from pypto.language import constructs as _constructs
from pypto.language import enums as _enums
from pypto.language import op_table as _op_table
from pypto.language.placeholders import make_all as _make_placeholders

# pl.add, pl.range, pl.at, pl.tile, pl.tensor, ... generated from the op table and the
# frontend's construct table (one place to add each).
globals().update(_make_placeholders())

from pypto.jit.decorator import jit  # noqa: E402,F401  (last: pypto.jit needs the above)
from pypto.jit.program import program, function  # noqa: E402,F401

import builtins as _builtins  # noqa: E402

# Names that would shadow a builtin (range, min, max, abs, ...) stay out of `import *`.
__all__ = sorted(n for n in set(
    ["DataType", "FP32", "FP16", "BF16", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "INT8", "INT16",
     "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "BOOL", "INDEX", "TASK_ID", "DynVar", "dynamic", "Tensor",
     "TensorType", "Tile", "TileType", "Scalar", "ScalarType", "Out", "InOut",
     "DirectionType", "RUNTIME", "Level", "FunctionType", "jit", "program", "function",
     "tile", "tensor", "system", "array", "prefetch", "Array", "ArrayType", "TaskId"] + list(_enums.__all__)
    + list(_op_table.OPS) + list(_constructs.FRONTEND_OPS) + list(_constructs.REGIONS)
    + list(_constructs.SPECIALS) + list(_constructs.LOOPS))
    if not hasattr(_builtins, n))


def __getattr__(name):
    """Ops the table gained after import (e.g. rows registered at runtime) still resolve."""
    from pypto.language.placeholders import placeholder
    made = placeholder(name)
    if made is None:
        raise AttributeError("module 'pypto.language' has no attribute %r" % name)
    return made
