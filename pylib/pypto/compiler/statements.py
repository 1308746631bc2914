"""Kernel statements -> IR STMT nodes (host/sim/IR.md); the whole entry FUNCTION."""

import ast
import builtins

from pypto.compiler.expressions import ExprTranslator
from pypto.compiler.kernel_source import MISSING
from pypto.compiler.syntax_names import unsupported
from pypto.language import op_table
from pypto.language.types import Level

_LOOPS = " or ".join("pl.%s(...)" % k for k in op_table.LOOP_ITERATORS)


class FunctionTranslator(ExprTranslator):
    def __init__(self, kernel, spec):
        super().__init__(kernel, spec)
        self.num_returns = None  # set by the first `return`

    def function(self):
        func = self.k.func
        # A specialised scalar that the body rebinds cannot fold everywhere: seed its slot.
        prologue = [{"s": "assign", "line": func.lineno, "slot": self.slot_of[p.name],
                     "value": self.scalar_const(p)}
                    for p in self.params.values()
                    if p.kind == "scalar" and not p.runtime and p.name not in self.folded]
        body = prologue + self.block(func.body)
        return {"name": self.k.name, "line": func.lineno,
                "params": [self._param(p) for p in self.params.values()],
                "slots": self.slots, "body": body}

    @staticmethod
    def _param(p):
        if p.kind == "tensor":
            return {"name": p.name, "kind": "tensor", "direction": p.direction,
                    "shape": list(p.shape), "dtype": p.dtype.name}
        return {"name": p.name, "kind": "scalar", "direction": "In", "dtype": p.dtype.name,
                "runtime": p.runtime}

    def block(self, stmts):
        out = []
        for node in stmts:
            method = getattr(self, "_s_" + type(node).__name__, None)
            if method is None:
                raise self.error(node, unsupported(node))
            out.extend(method(node))
        return out

    @staticmethod
    def _stmt(s, node, /, **fields):  # positional-only: "kind" is also a field name
        return {"s": s, "line": node.lineno, **fields}

    # -- assignments --------------------------------------------------------------------
    def _s_Assign(self, node):
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment '%s' is not supported" % self.k.text(node))
        return [self.assign(node, node.targets[0], node.value)]

    def _s_AnnAssign(self, node):
        if node.value is None:  # a bare declaration has no effect
            return []
        return [self.assign(node, node.target, node.value)]

    def _s_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment to '%s' is not supported; only to a "
                             "plain name" % self.k.text(node.target))
        value = self.expr(ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op,
                                    right=node.value, lineno=node.lineno,
                                    col_offset=node.col_offset))
        return [self._stmt("assign", node, slot=self.bind(node.target.id), value=value)]

    def assign(self, node, target, value_node):
        value = self.expr(value_node)  # Python evaluates the right side first
        if isinstance(target, ast.Name):
            return self._stmt("assign", node, slot=self.bind(target.id), value=value)
        if isinstance(target, (ast.Tuple, ast.List)):
            if not all(isinstance(t, ast.Name) for t in target.elts):
                raise self.error(node, "tuple assignment targets must be plain names ('%s')"
                                 % self.k.text(target))
            return self._stmt("unpack", node, slots=[self.bind(t.id) for t in target.elts],
                              value=value)
        if isinstance(target, ast.Subscript):
            base = target.value
            if not isinstance(base, ast.Name) or not self.is_local(base.id):
                raise self.error(node, "the target of a subscript assignment must be a plain "
                                 "tensor name, got '%s'" % self.k.text(base))
            if base.id in self.folded:
                raise self.error(node, "'%s' is a scalar parameter and cannot be subscripted"
                                 % base.id)
            return self._stmt("write", node, target=self.bind(base.id),
                              index=self.index_list(target), text=self.k.text(target), value=value)
        raise self.error(node, "assignment to '%s' is not supported" % self.k.text(target))

    # -- control flow -------------------------------------------------------------------
    def _s_For(self, node):
        if node.orelse:
            raise self.error(node, "'for ... else' is not supported in a kernel")
        it = node.iter
        fn = self.static_value(it.func) if isinstance(it, ast.Call) else MISSING
        kind = op_table.LOOP_ITERATORS.get(getattr(fn, "_pypto_loop", None))
        if kind is None:
            if fn is builtins.range:
                raise self.error(node, "plain Python 'range' is not allowed as a kernel loop; "
                                 "use %s" % _LOOPS)
            raise self.error(node, "a kernel for-loop must iterate over %s, got '%s'"
                             % (_LOOPS, self.k.text(it)))
        label = "pl.%s()" % fn._pypto_loop
        if it.keywords:
            raise self.error(node, "%s: keyword argument '%s' is not supported yet"
                             % (label, it.keywords[0].arg))
        if not 1 <= len(it.args) <= 3 or any(isinstance(a, ast.Starred) for a in it.args):
            raise self.error(node, "%s takes 1 to 3 arguments (%s), got %d"
                             % (label, ", ".join(op_table.LOOP_PARAMS), len(it.args)))
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "the loop variable of %s must be a plain name, got '%s'"
                             % (label, self.k.text(node.target)))
        bounds = [self.expr(a) for a in it.args]
        if len(bounds) == 1:
            bounds.insert(0, {"e": "const", "dtype": "int64", "v": 0})
        if len(bounds) == 2:
            bounds.append({"e": "const", "dtype": "int64", "v": 1})
        var = self.bind(node.target.id)
        return [self._stmt("for", node, kind=kind, var=var, start=bounds[0], stop=bounds[1],
                           step=bounds[2], body=self.block(node.body))]

    def _s_With(self, node):
        item = node.items[0]
        call = item.context_expr
        fn = self.static_value(call.func) if isinstance(call, ast.Call) else MISSING
        region = getattr(fn, "_pypto_region", None)
        if len(node.items) != 1 or region not in op_table.REGIONS:
            raise self.error(node, "a kernel 'with' statement must be 'with pl.at(...)'")
        label = "pl.%s()" % region
        if item.optional_vars is not None:
            raise self.error(node, "%s: 'as' targets are not supported yet" % label)
        if call.args:
            raise self.error(node, "%s takes keyword arguments only (%s)"
                             % (label, ", ".join("%s=" % k for k in op_table.REGIONS[region])))
        name = None
        for kw in call.keywords:
            if kw.arg not in op_table.REGIONS[region]:
                raise self.error(node, "%s got an unexpected keyword argument '%s'"
                                 % (label, kw.arg))
            value = self._static(kw.value)
            if kw.arg == "name_hint":
                if not (value is None or isinstance(value, str)):
                    raise self.error(node, "%s: name_hint must be a compile-time string, got '%s'"
                                     % (label, self.k.text(kw.value)))
                name = value
            elif kw.arg == "level" and not isinstance(value, Level):
                raise self.error(node, "%s: level must be a pl.Level member, got '%s'"
                                 % (label, self.k.text(kw.value)))
        return [self._stmt("at", node, name=name, body=self.block(node.body))]

    def _static(self, node):
        """A compile-time value (literal or module-level name), MISSING otherwise."""
        if isinstance(node, ast.Constant):
            return node.value
        return self.static_value(node)

    def _s_If(self, node):
        return [self._stmt("if", node, cond=self.expr(node.test), then=self.block(node.body),
                           **{"else": self.block(node.orelse)})]

    def _s_Return(self, node):
        if node.value is None:
            values = []
        elif isinstance(node.value, ast.Tuple):
            values = [self.expr(e) for e in node.value.elts]
        else:
            values = [self.expr(node.value)]
        if self.num_returns is None:
            self.num_returns = len(values)
        elif self.num_returns != len(values):
            raise self.error(node, "this return gives %d value(s) but an earlier one gives %d"
                             % (len(values), self.num_returns))
        return [self._stmt("return", node, values=values)]

    def _s_Expr(self, node):
        if isinstance(node.value, ast.Constant):  # docstrings and stray literals
            return []
        return [self._stmt("expr", node, value=self.expr(node.value))]

    def _s_Pass(self, node):
        return []
