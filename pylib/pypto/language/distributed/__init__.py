"""`import pypto.language.distributed as pld`: the distributed DSL of L3 programs.

A `@pl.jit.host` program allocates window buffers (`pld.alloc_window_buffer`), takes typed
views of them (`pld.window`) and launches one chip program per rank (`chip(..., device=r)`
in `for r in pl.range(pld.world_size())`). The chip programs reach their peers' windows
with one-sided loads, stores and puts, and order them with signals (`pld.system.notify` /
`pld.system.wait`). Like `pl.*`, these are stand-ins the frontend recognises; calling one
from Python is an error."""

import enum

from pypto.language.enums import AtomicType
from pypto.language.placeholders import _eager_guard
from pypto.language.types import TensorType, Tensor

__all__ = ["AtomicType", "DistributedTensor", "DistributedTensorType", "NotifyOp", "ReduceOp",
           "WaitCmp", "alloc_window_buffer", "remote_load", "remote_store", "system", "tensor",
           "tile", "window", "world_size"]


class NotifyOp(enum.Enum):
    """pld.system.notify: add `value` to the peer's slot, or set it."""
    AtomicAdd = 0
    Set = 1


class WaitCmp(enum.Enum):
    """pld.system.wait: until the slot equals `expected`, or is at least `expected`."""
    Eq = 0
    Ge = 1


class ReduceOp(enum.Enum):
    Sum = 0
    Max = 1
    Min = 2


class DistributedTensorType(TensorType):
    """`pld.DistributedTensor[[dims], dtype]`: a tensor bound to a window buffer, which every
    rank holds at the same place (its peers reach it with pld.* remote ops)."""

    def __repr__(self):
        return "pld.DistributedTensor" + TensorType.__repr__(self)[len("pl.Tensor"):]


class DistributedTensor:
    def __class_getitem__(cls, item):
        t = Tensor[item]
        return DistributedTensorType(t.shape, t.dtype, getattr(t, "layout", None))


def _op(spelled, ir_op):
    fn = _eager_guard("distributed ops", spelled)
    fn.__module__ = "pypto.language.distributed"
    fn._pypto_op = ir_op
    return fn


def _special(spelled, name):
    fn = _eager_guard("distributed ops", spelled)
    fn.__module__ = "pypto.language.distributed"
    fn._pypto_special = name
    return fn


class _Namespace:
    """`pld.system`, `pld.tensor`, `pld.tile`."""

    def __init__(self, name, members):
        self._name = name
        self.__dict__.update(members)

    def __repr__(self):
        return "<pld.%s namespace>" % self._name


alloc_window_buffer = _op("pld.alloc_window_buffer", "window_alloc")
window = _op("pld.window", "window_view")
world_size = _special("pld.world_size", "world_size")
remote_load = _op("pld.remote_load", "remote_load")
remote_store = _op("pld.remote_store", "remote_store")

system = _Namespace("system", dict(
    world_size=world_size,
    notify=_op("pld.system.notify", "signal_notify"),
    wait=_op("pld.system.wait", "signal_wait"),
))
tensor = _Namespace("tensor", dict(
    alloc_window_buffer=alloc_window_buffer,
    window=window,
    put=_op("pld.tensor.put", "remote_put"),
    get=_op("pld.tensor.get", "remote_get"),
    remote_store=_op("pld.tensor.remote_store", "remote_store"),
))
tile = _Namespace("tile", dict(
    remote_load=_op("pld.tile.remote_load", "remote_load"),
    remote_store=_op("pld.tile.remote_store", "remote_store"),
))
