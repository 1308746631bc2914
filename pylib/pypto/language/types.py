"""Annotation objects (`pl.Tensor[...]`, `pl.Scalar[...]`, `pl.Out[...]`), `pl.dynamic`,
`pl.RUNTIME` and `pl.Level`. They only describe parameters; the frontend reads them."""

import enum

from pypto.language.dtypes import TASK_ID, DataType


class DynVar:
    """A symbolic dimension made by `pl.dynamic("M")`; reuse one object for equal dims."""

    __slots__ = ("name",)

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise TypeError("pl.dynamic() needs a non-empty name string")
        self.name = name

    def __repr__(self):
        return "pl.dynamic(%r)" % self.name


def dynamic(name):
    return DynVar(name)


class TensorType:
    """The value of `pl.Tensor[[d0, d1, ...], dtype]` (optional third slot: layout)."""

    __slots__ = ("shape", "dtype", "layout")

    def __init__(self, shape, dtype, layout=None):
        self.shape = shape
        self.dtype = dtype
        self.layout = layout

    def __repr__(self):
        dims = ", ".join(d.name if isinstance(d, DynVar) else str(d) for d in self.shape)
        return "pl.Tensor[[%s], %r]" % (dims, self.dtype)


class Tensor:
    """`pl.Tensor[[dims], dtype]`; bare `pl.Tensor` means "shape from the sample"."""

    def __class_getitem__(cls, item):
        if not isinstance(item, tuple) or len(item) not in (2, 3):
            raise TypeError("pl.Tensor[...] takes [dims], dtype (and optionally a layout)")
        shape, dtype = item[0], item[1]
        if not isinstance(shape, (list, tuple)):
            raise TypeError("pl.Tensor[...]: the shape must be a list of dims, got %r" % (shape,))
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, (int, DynVar)):
                raise TypeError("pl.Tensor[...]: dims must be ints or pl.dynamic vars, got %r" % (d,))
        if not isinstance(dtype, DataType):
            raise TypeError("pl.Tensor[...]: the dtype must be a pl dtype, got %r" % (dtype,))
        return TensorType(tuple(shape), dtype, item[2] if len(item) == 3 else None)


class TileType(TensorType):
    """The value of `pl.Tile[[d0, d1, ...], dtype]` (annotations of helper parameters and
    locals; an entry kernel's parameters are tensors)."""

    __slots__ = ()

    def __repr__(self):
        return "pl.Tile" + TensorType.__repr__(self)[len("pl.Tensor"):]


class Tile:
    """`pl.Tile[[dims], dtype]`: accepted on helper parameters, never read by the frontend."""

    def __class_getitem__(cls, item):
        t = Tensor[item]
        return TileType(t.shape, t.dtype, t.layout)


class ScalarType:
    """The value of `pl.Scalar[dtype]` (dtype None for a bare `pl.Scalar`)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return "pl.Scalar[%r]" % self.dtype


class Scalar:
    def __class_getitem__(cls, dtype):
        if not isinstance(dtype, DataType):
            raise TypeError("pl.Scalar[...] takes a pl dtype, got %r" % (dtype,))
        return ScalarType(dtype)


# `pl.TaskId` is `pl.Scalar[pl.TASK_ID]`, the type of `with pl.at(...) as tid`.
TaskId = ScalarType(TASK_ID)


class ArrayType:
    """The value of `pl.Array[extent, dtype]`: a small fixed-size 1-D array of integers,
    BOOL or task ids, made by pl.array.create. Annotations of helper parameters and
    locals only: an array lives in the function (or task) that creates it, so it is never a
    kernel parameter."""

    __slots__ = ("extent", "dtype")

    def __init__(self, extent, dtype):
        self.extent = extent
        self.dtype = dtype

    def __repr__(self):
        return "pl.Array[%r, %r]" % (self.extent, self.dtype)


class Array:
    """`pl.Array[extent, dtype]`."""

    def __class_getitem__(cls, item):
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError("pl.Array requires [extent, dtype] notation")
        extent, dtype = item
        if not isinstance(dtype, DataType):
            raise TypeError("pl.Array[...]: the dtype must be a pl dtype, got %r" % (dtype,))
        return ArrayType(extent, dtype)


class DirectionType:
    """`pl.Out[T]` / `pl.InOut[T]`: keeps the direction that a plain T would lose."""

    __slots__ = ("direction", "inner")

    def __init__(self, direction, inner):
        self.direction = direction
        self.inner = inner

    def __repr__(self):
        return "pl.%s[%r]" % (self.direction, self.inner)


def _direction_wrapper(direction):
    def getitem(cls, inner):
        if not (inner is Tensor or isinstance(inner, TensorType)):
            raise TypeError("pl.%s[...] wraps a pl.Tensor annotation, got %r" % (direction, inner))
        return DirectionType(direction, inner)
    return classmethod(getitem)


class Out:
    __class_getitem__ = _direction_wrapper("Out")


class InOut:
    __class_getitem__ = _direction_wrapper("InOut")


class _RuntimeMarker:
    """`pl.RUNTIME`: leave a scalar unspecialised (signature-mode compile() only)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "pl.RUNTIME"

    def __reduce__(self):
        return (_RuntimeMarker, ())


RUNTIME = _RuntimeMarker()


class FunctionType(enum.Enum):
    """`@pl.function(type=...)` inside a `@pl.program` class."""
    Opaque = "Opaque"
    Orchestration = "Orchestration"
    InCore = "InCore"
    AIC = "AIC"
    AIV = "AIV"
    Inline = "Inline"
    Group = "Group"
    Spmd = "Spmd"


class Level(enum.Enum):
    AIC = "AIC"
    AIV = "AIV"
    CORE_GROUP = "CORE_GROUP"
    HOST = "HOST"
