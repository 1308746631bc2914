"""A compiled program's parameter metadata, as PyPTO's `_get_metadata()` returns it: one
ParamInfo per parameter (name, direction, shape, dtype), read from the build directory's
compiled_meta.json / distributed_meta.json."""

import enum
from dataclasses import dataclass

from pypto.language.dtypes import BY_NAME, DataType


class ParamDirection(enum.Enum):
    In = "In"
    Out = "Out"
    InOut = "InOut"


@dataclass(frozen=True)
class ParamInfo:
    name: str
    direction: ParamDirection
    shape: list  # None for a scalar; -1 for a pl.dynamic extent
    dtype: DataType


def param_infos(meta, meta_path):
    """The ParamInfos of a loaded meta JSON; a malformed entry is a ValueError naming the file."""
    infos = []
    for k, p in enumerate(meta.get("params", ())):
        try:
            direction = ParamDirection(p["direction"])
            dtype = BY_NAME[p["dtype"]]
            shape = None if p["shape"] is None else [int(d) for d in p["shape"]]
            infos.append(ParamInfo(str(p["name"]), direction, shape, dtype))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError("%s: parameter %d is malformed (%s: %s); recompile the kernel to refresh "
                             "the build directory" % (meta_path, k, type(e).__name__, e)) from None
    return infos
