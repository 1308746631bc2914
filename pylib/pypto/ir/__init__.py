"""`pypto.ir`: the parts of PyPTO's IR package that scripts import around a run
(compiled_program's helpers, printer, pass_manager). The bundled frontend builds no PyPTO IR:
it translates a kernel straight into the simulator program (host/sim/IR.md)."""
