"""Enumerations of the DSL (pl.PadValue, pl.tile.MaskPattern, pl.AtomicType, ...).

The frontend turns a member into a string constant "<Enum>.<member>" in the IR
(host/sim/IR.md), which the simulator's ops interpret."""

import enum

__all__ = []
