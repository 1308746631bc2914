"""`import pypto.language as pl`: the PyPTO DSL surface understood by the bundled frontend."""

from pypto.language.dtypes import (  # noqa: F401
    DataType, FP32, FP16, BF16, INT8, INT16, INT32, INT64,
    UINT8, UINT16, UINT32, UINT64, BOOL, INDEX,
)
from pypto.language.types import (  # noqa: F401
    DynVar, dynamic, Tensor, TensorType, Scalar, ScalarType, Out, InOut, DirectionType,
    RUNTIME, Level,
)
from pypto.language.enums import *  # noqa: F401,F403  (PadValue, AtomicType, ...)
from pypto.language import enums as _enums
from pypto.language import op_table as _op_table
from pypto.language.placeholders import make_all as _make_placeholders

# pl.add, pl.range, pl.parallel, pl.at, ... generated from the op table (one place to add).
globals().update(_make_placeholders())

from pypto.jit.decorator import jit  # noqa: E402,F401  (last: pypto.jit needs the above)

__all__ = sorted(
    ["DataType", "FP32", "FP16", "BF16", "INT8", "INT16", "INT32", "INT64", "UINT8",
     "UINT16", "UINT32", "UINT64", "BOOL", "INDEX", "DynVar", "dynamic", "Tensor",
     "TensorType", "Scalar", "ScalarType", "Out", "InOut", "DirectionType", "RUNTIME",
     "Level", "jit"] + list(_enums.__all__)
    + list(_op_table.OPS) + list(_op_table.REGIONS)
    # `range` stays out of `import *`: it would shadow the builtin in user modules.
    + [n for n in _op_table.LOOP_ITERATORS if n != "range"])
