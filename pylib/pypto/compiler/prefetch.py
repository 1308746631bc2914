"""pl.prefetch.make_context / async_prefetch / session / wait: asynchronous GM -> L2 cache
warming.

PyPTO's meaning (python/pypto/language/op/prefetch_ops.py and src/ir/op/prefetch/
prefetch_async.cpp of the PyPTO repository): a latency-hiding hint that changes no tensor
value, so a kernel computes the same with or without it. The simulator has no cache to warm:
each call keeps PyPTO's argument checks and yields an opaque handle (a `none` constant typed
as the handle kind) that only the next prefetch call accepts; pl.prefetch.wait is True, the
data being resident from the start. No IR node is emitted for them."""

import ast

from pypto.compiler import tys
from pypto.compiler.ir_nodes import const
from pypto.compiler.tys import Ty
from pypto.language.dtypes import BOOL

# name -> (parameter names, the handle kind each must be ("tensor": the prefetched source),
# what the call yields).
_SIGNATURES = {
    "make_context": ((), (), "prefetch_context"),
    "async_prefetch": (("src", "ctx"), ("tensor", "prefetch_context"), "async_event"),
    "session": (("ctx",), ("prefetch_context",), "async_session"),
    "wait": (("event", "session"), ("async_event", "async_session"), None),
}
# The call that makes each handle kind, for "expects X (output of Y)" messages.
_PRODUCERS = {"prefetch_context": "pl.prefetch.make_context()",
              "async_event": "pl.prefetch.async_prefetch()",
              "async_session": "pl.prefetch.session()"}
_INCORE_WHERE = ("an InCore region ('with pl.at(...)', a pl.spmd body or a @pl.jit.incore "
                 "function): the prefetch ops run on the vector core")


class PrefetchMixin:
    """The pl.prefetch half of expressions.ExprTranslator."""

    def prefetch_call(self, node, name):
        label = "pl.prefetch.%s()" % name
        params, kinds, result = _SIGNATURES[name]
        if node.keywords:
            raise self.error(node, "%s takes no keyword arguments, got '%s='"
                             % (label, node.keywords[0].arg))
        if len(node.args) != len(params) or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error(node, "%s requires exactly %d positional argument(s) (%s), but got %d"
                             % (label, len(params), ", ".join(params) or "no arguments",
                                len(node.args)))
        if not self.incore:
            raise self.error(node, "%s must be inside %s" % (label, _INCORE_WHERE))
        for param, kind, arg in zip(params, kinds, node.args):
            ty = self.texpr(arg)[1]
            if kind == "tensor":
                self._check_prefetch_source(node, label, arg, ty)
            elif ty.kind != kind:
                raise self.error(node, "%s: %s must be %s (the result of %s), got '%s' (%s)"
                                 % (label, param, tys.HANDLE_NAMES[kind], _PRODUCERS[kind],
                                    self.text(arg), tys.describe(ty)))
        if result is None:  # wait: the data is resident from the start
            ir = const("bool", True)
            return ir, tys.scalar(BOOL, ir)
        ir = const("none", None)
        return ir, Ty(result, value=ir)

    def _check_prefetch_source(self, node, label, arg, ty):
        """PyPTO's source rule: a tensor variable of a fully static shape that is logically
        1-D (every dimension but the last is 1), one contiguous run of global memory."""
        if not ty.is_tensor:
            raise self.error(node, "%s: src must be a GM tensor (prefetch reads global memory), "
                             "got '%s' (%s)" % (label, self.text(arg), tys.describe(ty)))
        if not isinstance(arg, ast.Name):
            raise self.error(node, "%s: src must be a tensor variable, got the expression '%s'; "
                             "assign it to a name first" % (label, self.text(arg)))
        shape = ty.shape if ty.stable else None
        if shape is None:
            raise self.error(node, "%s: the shape of src '%s' is not known at compile time; async "
                             "prefetch needs a compile-time byte extent" % (label, arg.id))
        if not shape:
            raise self.error(node, "%s: src '%s' must have rank >= 1, got a rank-0 tensor"
                             % (label, arg.id))
        for axis, d in enumerate(shape):
            if d is None:
                raise self.error(node, "%s: src '%s' must have a fully static shape, but dimension "
                                 "%d is dynamic; async prefetch needs a compile-time byte extent"
                                 % (label, arg.id, axis))
        for axis, d in enumerate(shape[:-1]):
            if d != 1:
                raise self.error(node, "%s: src '%s' must be a flat contiguous logical 1-D GM "
                                 "region (all dimensions except the last must be 1), but "
                                 "dimension %d is %d; reshape the tensor to [N] or [1, ..., N] "
                                 "before prefetching" % (label, arg.id, axis, d))
