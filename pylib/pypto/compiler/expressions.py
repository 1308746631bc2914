"""Kernel expressions -> IR EXPR nodes (host/sim/IR.md). Compile-time values (module
constants, specialised scalars, x.shape / x.dtype of parameters) become `const` nodes."""

import ast
import math
import sys

from pypto.compiler.kernel_source import MISSING
from pypto.compiler.syntax_names import unsupported
from pypto.language import op_table
from pypto.language.dtypes import DataType

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod"}
_CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
           ast.GtE: "ge"}
_OP_SYMBOLS = {ast.Pow: "**", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
               ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.Is: "is",
               ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.Invert: "~"}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def const(dtype, v):
    return {"e": "const", "dtype": dtype, "v": v}


def _is_language_module(obj):
    name = getattr(obj, "__name__", None)
    return (type(obj) is type(sys) and isinstance(name, str)
            and (name == "pypto.language" or name.startswith("pypto.language.")))


def _known(table):
    return ", ".join("pl.%s" % n for n in sorted(table))


class ExprTranslator:
    def __init__(self, kernel, spec):
        self.k = kernel
        self.slots = [p.name for p in spec.params]
        self.slot_of = {p.name: i for i, p in enumerate(spec.params)}
        self.params = {p.name: p for p in spec.params}
        # Specialised scalars fold to consts unless the body rebinds them (then a prologue
        # assigns the const to the slot, see statements.py).
        self.folded = {p.name: self.scalar_const(p) for p in spec.params
                       if p.kind == "scalar" and not p.runtime
                       and p.name not in kernel.bound_names}

    # -- helpers ----------------------------------------------------------------------
    def error(self, node, detail):
        return self.k.error(node, detail)

    @staticmethod
    def scalar_const(param):
        return const(param.dtype.name, param.value)

    def bind(self, name):
        """Slot of a name being assigned (rebinding reuses the slot)."""
        if name not in self.slot_of:
            self.slot_of[name] = len(self.slots)
            self.slots.append(name)
        return self.slot_of[name]

    def is_local(self, name):
        return name in self.slot_of or name in self.k.bound_names

    def static_value(self, node):
        """Value of a Name / Attribute chain rooted at a non-local name, else MISSING."""
        if isinstance(node, ast.Name):
            return MISSING if self.is_local(node.id) else self.k.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value)
            return MISSING if base is MISSING else getattr(base, node.attr, MISSING)
        return MISSING

    def fold(self, node, value):
        """A const node for a compile-time Python value."""
        if isinstance(value, bool):
            return const("bool", value)
        if isinstance(value, int):
            if not _INT64_MIN <= value <= _INT64_MAX:
                raise self.error(node, "integer %d does not fit in int64" % value)
            return const("int64", value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.error(node, "non-finite float %r cannot be a kernel constant" % value)
            return const("fp32", value)
        if isinstance(value, str):
            return const("str", value)
        if value is None:
            return const("none", None)
        if isinstance(value, DataType):
            return const("dtype", value.name)
        raise self.error(node, "'%s' is a %s and cannot be used as a value in a kernel (only "
                         "int, float, bool, str and pl dtype values are folded)"
                         % (self.k.text(node), type(value).__name__))

    def not_defined(self, node):
        if isinstance(node, ast.Name):
            return self.error(node, "name '%s' is not defined" % node.id)
        return self.error(node, "'%s' is not defined" % self.k.text(node))

    def is_static_chain(self, node):
        """A Name / Attribute chain whose root is not a kernel variable (module-level)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and not self.is_local(node.id)

    def tensor_param(self, node, what):
        """The BoundParam of `x` in `x.shape` / `x.dtype` (known only for parameters)."""
        if isinstance(node, ast.Name) and node.id in self.params \
                and self.params[node.id].kind == "tensor":
            if node.id in self.k.bound_names:
                raise self.error(node, "'%s.%s': '%s' is reassigned in the kernel, so its %s is "
                                 "not known at compile time" % (node.id, what, node.id, what))
            return self.params[node.id]
        raise self.error(node, "'%s.%s' is only supported on tensor parameters"
                         % (self.k.text(node), what))

    # -- dispatch -----------------------------------------------------------------------
    def expr(self, node):
        method = getattr(self, "_e_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, unsupported(node))
        return method(node)

    def opt_expr(self, node):
        return None if node is None else self.expr(node)

    def _e_Constant(self, node):
        if node.value is Ellipsis or isinstance(node.value, (bytes, complex)):
            raise self.error(node, "unsupported constant %s" % self.k.text(node))
        return self.fold(node, node.value)

    def _e_Name(self, node):
        name = node.id
        if name in self.folded:
            return self.folded[name]
        if self.is_local(name):
            return {"e": "var", "slot": self.bind(name)}
        value = self.k.lookup(name)
        if value is MISSING:
            raise self.not_defined(node)
        return self.fold(node, value)

    def _e_Attribute(self, node):
        if self.is_static_chain(node):
            value = self.static_value(node)
            if value is MISSING:
                raise self.not_defined(node)
            return self.fold(node, value)
        if node.attr in ("shape", "dtype") and isinstance(node.value, ast.Name):
            param = self.tensor_param(node.value, node.attr)
            if node.attr == "dtype":
                return const("dtype", param.dtype.name)
            return {"e": "list", "items": [const("int64", d) for d in param.shape]}
        raise self.error(node, "attribute '%s' is not supported in a kernel" % self.k.text(node))

    def _e_Subscript(self, node):
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == "shape" \
                and isinstance(base.value, ast.Name) and self.is_local(base.value.id):
            return self._shape_item(node, self.tensor_param(base.value, "shape"))
        return {"e": "subscript", "base": self.expr(base), "index": self.index_list(node),
                "text": self.k.text(node)}

    def _shape_item(self, node, param):
        idx = node.slice
        sign = 1
        if isinstance(idx, ast.UnaryOp) and isinstance(idx.op, ast.USub):
            sign, idx = -1, idx.operand
        if isinstance(idx, ast.Constant):
            i = idx.value
        elif isinstance(idx, ast.Name) and idx.id in self.folded:  # a specialised scalar
            i = self.folded[idx.id]["v"]
        else:
            i = self.static_value(idx)
        if isinstance(i, int) and not isinstance(i, bool):
            i *= sign
        if isinstance(i, bool) or not isinstance(i, int):
            raise self.error(node, "'%s': the index of .shape must be a compile-time int"
                             % self.k.text(node))
        if not -len(param.shape) <= i < len(param.shape):
            raise self.error(node, "'%s': index %d out of range for a %d-d tensor"
                             % (self.k.text(node), i, len(param.shape)))
        return const("int64", param.shape[i])

    def index_list(self, node):
        """IDX list of a subscript (read or write target)."""
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out = []
        for item in items:
            if isinstance(item, ast.Slice):
                if item.step is not None:
                    raise self.error(node, "slice steps are not supported in kernel subscripts "
                                     "('%s')" % self.k.text(node))
                out.append({"k": "slice", "lo": self.opt_expr(item.lower),
                            "hi": self.opt_expr(item.upper)})
            else:
                out.append({"k": "index", "v": self.expr(item)})
        return out

    def _bad_operator(self, node, op):
        return self.error(node, "operator '%s' is not supported in a kernel"
                          % _OP_SYMBOLS.get(type(op), type(op).__name__))

    def _e_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self._bad_operator(node, node.op)
        return {"e": "binop", "op": op, "lhs": self.expr(node.left), "rhs": self.expr(node.right)}

    def _e_Compare(self, node):
        if len(node.ops) != 1:
            raise self.error(node, "chained comparison '%s' is not supported; combine single "
                             "comparisons with 'and'" % self.k.text(node))
        op = _CMPOPS.get(type(node.ops[0]))
        if op is None:
            raise self._bad_operator(node, node.ops[0])
        return {"e": "binop", "op": op, "lhs": self.expr(node.left),
                "rhs": self.expr(node.comparators[0])}

    def _e_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = self.expr(node.values[0])
        for value in node.values[1:]:
            result = {"e": "binop", "op": op, "lhs": result, "rhs": self.expr(value)}
        return result

    def _e_UnaryOp(self, node):
        if isinstance(node.op, ast.UAdd):
            return self.expr(node.operand)
        if isinstance(node.op, ast.USub):
            if isinstance(node.operand, ast.Constant) and not isinstance(node.operand.value, bool) \
                    and isinstance(node.operand.value, (int, float)):
                return self.fold(node, -node.operand.value)  # a negative literal
            return {"e": "unary", "op": "neg", "operand": self.expr(node.operand)}
        if isinstance(node.op, ast.Not):
            return {"e": "unary", "op": "not", "operand": self.expr(node.operand)}
        raise self._bad_operator(node, node.op)

    def _e_Tuple(self, node):
        return {"e": "tuple", "items": [self.expr(e) for e in node.elts]}

    def _e_List(self, node):
        return {"e": "list", "items": [self.expr(e) for e in node.elts]}

    # -- calls --------------------------------------------------------------------------
    def callee(self, node):
        """The static object a call's function resolves to (errors if it does not)."""
        fn = self.static_value(node.func)
        if fn is not MISSING:
            return fn
        func = node.func
        if self.is_static_chain(func):
            base = func
            while isinstance(base, ast.Attribute):  # pl.foo, pl.tensor.foo, ...
                base = base.value
                if _is_language_module(self.static_value(base)):
                    raise self.error(node, "unknown op '%s' (known ops: %s)"
                                     % (self.k.text(func), _known(op_table.OPS)))
            raise self.not_defined(func)
        raise self.error(node, "call to '%s' is not supported in a kernel: only pl.<op>(...) "
                         "calls are allowed" % self.k.text(func))

    def _e_Call(self, node):
        fn = self.callee(node)
        name = self.k.text(node.func)
        if getattr(fn, "_pypto_op", None) in op_table.OPS:
            return self.op_call(node, fn._pypto_op)
        if getattr(fn, "_pypto_loop", None):
            raise self.error(node, "%s(...) can only be used as a for-loop iterator" % name)
        if getattr(fn, "_pypto_region", None):
            raise self.error(node, "%s(...) can only be used in a 'with' statement" % name)
        raise self.error(node, "call to '%s' is not supported in a kernel: only pl.<op>(...) "
                         "calls are allowed" % name)

    def op_call(self, node, op):
        spec = op_table.OPS[op]
        label = "pl.%s()" % op
        if any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            raise self.error(node, "%s: *args / **kwargs are not supported in kernel calls" % label)
        count = len(node.args) + sum(1 for kw in node.keywords if kw.arg in spec.params)
        if len(node.args) > len(spec.params):
            raise self._arity_error(node, spec, label, count)
        given = dict(zip(spec.params, node.args))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg in spec.params:
                if kw.arg in given:
                    raise self.error(node, "%s got multiple values for argument '%s'"
                                     % (label, kw.arg))
                given[kw.arg] = kw.value
            elif kw.arg in spec.keywords:
                kwargs[kw.arg] = self.expr(kw.value)
            else:
                raise self.error(node, "%s got an unexpected keyword argument '%s'"
                                 % (label, kw.arg))
        # Positional params must be given without gaps; the IR passes them positionally.
        ordered = []
        for p in spec.params:
            if p not in given:
                break
            ordered.append(given[p])
        if len(ordered) < spec.required or len(ordered) != count:
            raise self._arity_error(node, spec, label, count)
        return {"e": "call", "op": op, "args": [self.expr(a) for a in ordered],
                "kwargs": kwargs}

    def _arity_error(self, node, spec, label, count):
        if spec.required == len(spec.params):
            takes = "%d argument%s" % (spec.required, "" if spec.required == 1 else "s")
        else:
            takes = "%d to %d arguments" % (spec.required, len(spec.params))
        return self.error(node, "%s takes %s (%s), got %d"
                          % (label, takes, ", ".join(spec.params), count))
