"""A @pl.jit.host program (L3): `chip(..., device=r)` calls of @pl.jit chip programs become
`launch` statements holding the chip program's spliced body, and the host waits for what it
launched (`join`) after each loop that launched chips and before it returns."""

import ast

from pypto.compiler import ir_nodes
from pypto.compiler.ir_nodes import const
from pypto.compiler.splice import Callee, ReturnPlan


def launches(stmts):
    """Whether a statement list launches a chip program (directly or nested)."""
    for st in stmts:
        if ir_nodes.stmt_kind(st) == "launch":
            return True
        if any(launches(b) for b in ir_nodes.blocks(st)):
            return True
    return False


class HostLaunchMixin:
    """The host-program half of statements.FunctionTranslator."""

    def chip_program(self, call):
        """The @pl.jit function a host-program call launches, else None."""
        if not self.is_static_chain(call.func):
            return None
        fn = self.static_value(call.func)
        if getattr(fn, "_func_type", None) != "orchestration" or not hasattr(fn, "_kernel"):
            return None
        return fn

    def launch_call(self, node, call, fn):
        """`chip(args..., device=r)` in the host program: one launch statement."""
        device = [k for k in call.keywords if k.arg == "device"]
        rank = self.expr(device[0].value) if device else const("int64", 0)
        stripped = ast.copy_location(
            ast.Call(func=call.func, args=call.args,
                     keywords=[k for k in call.keywords if k.arg != "device"]), call)
        callee = Callee(fn._kernel()[0], "orchestration", fn.__name__)
        saved_pending, saved_host = self.pending, self.host
        self.pending, self.host = [], False  # the chip body is device code
        try:
            self.splice_call(stripped, callee, ReturnPlan("discard"))
            body = self.pending
        finally:
            self.pending, self.host = saved_pending, saved_host
        return [ir_nodes.launch(self.stmt_line(node), rank, fn.__name__, body)]

    def joined(self, node, stmts):
        """stmts, then a join when they launched chip programs."""
        ends_joined = stmts and ir_nodes.stmt_kind(stmts[-1]) in ("join", "return")
        if self.host and launches(stmts) and not ends_joined:
            return stmts + [ir_nodes.join(self.stmt_line(node))]
        return stmts
