"""`pypto.ir.compiled_program`: the compiled program and the dtype / shape helpers scripts use
to allocate host tensors for its parameters."""

from pypto.jit.compiled_program import CompiledProgram  # noqa: F401
from pypto.language.dtypes import BY_NAME, DataType


def _as_dtype(dtype):
    if isinstance(dtype, DataType):
        return dtype
    found = BY_NAME.get(str(dtype))
    if found is None:
        raise TypeError("expected a pypto DataType (or its name), got %r" % (dtype,))
    return found


def _to_torch_dtype(dtype):
    """The torch dtype of a PyPTO dtype, or None where torch has none (index, task_id)."""
    return _as_dtype(dtype).to_torch()


def _to_runtime_shape(shape, dtype):
    """The host tensor shape of a parameter of this logical shape: the same, as no dtype the
    simulator supports is packed below a byte (PyPTO halves the last extent of FP4 only)."""
    _as_dtype(dtype)
    return list(shape)
