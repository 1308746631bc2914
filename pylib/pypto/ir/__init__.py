"""`pypto.ir`: the parts of PyPTO's IR package that scripts import around a run
(compiled_program's helpers, printer, pass_manager, and `Program`, the read-only view of what a
kernel lowers to). The bundled frontend builds no PyPTO IR:
it translates a kernel straight into the simulator program (host/sim/IR.md)."""

from pypto.ir.program import Function, GlobalVar, Program  # noqa: E402,F401
