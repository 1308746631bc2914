"""Enumerations of the DSL (pl.PadValue, pl.tile.MaskPattern, pl.AtomicType, ...).

The frontend turns a member into a string constant "<Enum>.<member>" in the IR
(host/sim/IR.md), which the simulator's ops interpret (host/sim/ops/)."""

import enum

__all__ = ["PadValue", "MaskPattern", "AtomicType", "CmpType", "RoundMode", "MemorySpace", "ScopeMode",
           "SplitMode"]


class PadValue(enum.Enum):
    """What the padding outside a valid region holds (pl.fillpad, pl.slice(pad_value=)).
    max / min are the dtype's largest / most negative finite values."""
    null = 0
    zero = 1
    max = 2
    min = 3


class MaskPattern(enum.IntEnum):
    """Column patterns of pl.gather's mask form, read right to left: P0101 keeps the even
    columns (c % 2 == 0), P1010 the odd ones, P0001..P1000 one column in four, P1111 all."""
    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7


class AtomicType(enum.Enum):
    """pl.store / pl.assemble: plain write, or atomic accumulate (+=)."""
    None_ = 0
    Add = 1


class CmpType(enum.IntEnum):
    """pl.cmp's cmp_type (the integer codes 0..5 work too)."""
    EQ = 0
    NE = 1
    LT = 2
    LE = 3
    GT = 4
    GE = 5


class RoundMode(enum.IntEnum):
    """pl.cast's mode; the strings "none", "rint", "round", ... (and codes 0..6) work too."""
    none = 0
    rint = 1
    round = 2
    floor = 3
    ceil = 4
    trunc = 5
    odd = 6


class MemorySpace(enum.Enum):
    """target_memory of pl.load / pl.move / pl.create_tile: no functional effect."""
    DDR = 0
    Vec = 1
    Mat = 2
    Left = 3
    Right = 4
    Acc = 5
    Bias = 6


class ScopeMode(enum.Enum):
    """Dependency tracking of a `with pl.scope(mode=...)` region: AUTO derives task
    dependencies from buffer overlap, MANUAL takes only the declared deps=. Tasks run in
    program order on the simulator, which satisfies both."""
    AUTO = 0
    MANUAL = 1


class SplitMode(enum.Enum):
    """How a `for aiv_id in pl.split_aiv(2, mode=...)` region shares its work between the two
    AIV lanes of a core: NONE runs the whole body on both lanes (the body dispatches by
    aiv_id); UP_DOWN / LEFT_RIGHT halve the region's tiles by rows / columns."""
    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2
