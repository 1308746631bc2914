"""Kernel expressions -> IR EXPR nodes (host/sim/IR.md). Compile-time values (module
constants, specialised scalars, x.shape / x.dtype, names holding a constant) become `const`
nodes; every expression also gets a static type (tys.Ty) for folding and checks."""

import ast
import difflib
import enum
import math
import sys

from pypto.compiler import ir_nodes, tys
from pypto.compiler.arrays import ArrayMixin
from pypto.compiler.errors import KernelCompileError
from pypto.compiler.ir_nodes import const, is_const, is_pure
from pypto.compiler.kernel_source import MISSING
from pypto.compiler.prefetch import PrefetchMixin
from pypto.compiler.task_deps import is_task_id
from pypto.compiler.syntax_names import unsupported
from pypto.compiler.tys import UNKNOWN, Ty
from pypto.language import constructs, op_table
from pypto.language.dtypes import BY_NAME, INDEX, INT64, BOOL, DataType

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod"}
_CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
           ast.GtE: "ge"}
_OP_SYMBOLS = {ast.Pow: "**", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
               ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.Is: "is",
               ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.Invert: "~",
               ast.FloorDiv: "//", ast.Mod: "%"}
_TENSOR_BINOPS = ("add", "sub", "mul", "truediv")  # the simulator's tensor operators

# The orchestration plane (outside pl.at / pl.spmd / @pl.jit.incore) only creates, views and
# moves tensors, as on the device, where compute runs in InCore tasks: these tensor ops;
# any other op on a tensor there is a compile error.
ORCHESTRATION_OPS = ("create_tensor", "read", "write", "slice", "reshape", "transpose",
                     "view", "reinterpret_view", "dim", "assemble")
_ORCHESTRATION_TEXT = ("pl.create_tensor, pl.read, pl.write, pl.slice, pl.reshape, "
                       "pl.transpose, pl.assemble, pl.tensor.dim and subscripts")
# Ops that make a tile/tensor from nothing but a shape (no tensor argument to notice).
_INCORE_PRODUCERS = ("full", "create_tile", "arange")
_INCORE_WHERE = ("an InCore region ('with pl.at(...)', a pl.spmd body or a @pl.jit.incore "
                 "function)")

# Static typing of op results (only where the rule is certain; anything else is unknown).
_SAME_DTYPE_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "fmod", "and_",
                      "or_", "xor")
_KEEP_DTYPE = _SAME_DTYPE_BINARY + (
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "recip", "relu", "sin", "cos",
    "row_sum", "row_max", "row_min", "row_prod", "col_sum", "col_max", "col_min", "col_prod",
    "slice", "reshape", "transpose", "fillpad", "assemble", "load", "move", "expands",
    "set_validshape")
_KEEP_SHAPE = _SAME_DTYPE_BINARY + ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "recip",
                                    "relu", "sin", "cos", "fillpad", "move", "cast",
                                    "set_validshape")
# Position of the dtype / shape argument (also found by these keyword names).
_DTYPE_ARG = {"cast": 1, "create_tensor": 1, "full": 1, "create_tile": 1, "arange": 2}
_DTYPE_NAMES = ("dtype", "target_type")
_SHAPE_ARG = {"create_tensor": 0, "full": 0, "create_tile": 0, "reshape": 1}
# The distributed DSL: window buffers belong to the host program, the remote ops and signals
# to the chip programs it launches (on either plane there, like pl.read / pl.write).
_HOST_OPS = ("window_alloc", "window_view")
_INCORE_BINOP_TEXT = "tensor arithmetic '%s' must be inside " + _INCORE_WHERE


def _is_language_object(obj):
    if getattr(obj, "_pypto_namespace", False):
        return True
    name = getattr(obj, "__name__", None)
    return (type(obj) is type(sys) and isinstance(name, str)
            and (name == "pypto.language" or name.startswith("pypto.language.")))


def _dtype_of_ir(ir):
    if is_const(ir, "dtype"):
        return BY_NAME.get(ir["v"])
    return None


class ExprTranslator(ArrayMixin, PrefetchMixin):
    """Expression half of the translator. State (slots, env, scope, planes) is set up by
    statements.FunctionTranslator."""

    # -- errors and source ------------------------------------------------------------
    def error(self, node, detail):
        return self.scope.kernel.error(node, detail)

    def text(self, node):
        return self.scope.kernel.text(node)

    # -- names and slots --------------------------------------------------------------
    def new_slot(self, display):
        self.slots.append(display)
        return len(self.slots) - 1

    def bind(self, name):
        """Slot of a name being assigned in the current scope (rebinding reuses it)."""
        sc = self.scope
        slot = sc.names.get(name)
        if slot is None:
            sc.consts.pop(name, None)
            slot = self.new_slot(sc.prefix + name)
            sc.names[name] = slot
        return slot

    def is_local(self, name):
        sc = self.scope
        return (name in sc.names or name in sc.consts or name in sc.kernel.bound_names
                or name in sc.params)

    def set_ty(self, slot, ir, ty):
        """Record what an assignment stores (its compile-time value when it has one)."""
        value = ir if is_pure(ir) else None
        # A copy of a value that may be stale (a loop-carried name) is just as stale.
        self.env[slot] = ty.replace(value=value, stable=ty.stable or value is not None)

    def static_value(self, node):
        """Value of a Name / Attribute chain rooted at a non-local name, else MISSING."""
        if isinstance(node, ast.Name):
            return MISSING if self.is_local(node.id) else self.scope.kernel.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value)
            if base is MISSING:
                return MISSING
            try:
                return getattr(base, node.attr)
            except Exception:  # noqa: BLE001 - any failing attribute is "not there"
                return MISSING
        return MISSING

    def is_static_chain(self, node):
        """A Name / Attribute chain whose root is not a kernel variable (module-level)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and not self.is_local(node.id)

    def fold(self, node, value):
        """(const IR, Ty) for a compile-time Python value."""
        if isinstance(value, enum.Enum):  # before int: IntEnum members are enum members
            ir = const("str", "%s.%s" % (type(value).__name__, value.name))
        elif isinstance(value, bool):
            ir = const("bool", value)
        elif isinstance(value, int):
            if not ir_nodes.fits_int64(value):
                raise self.error(node, "integer %d does not fit in int64" % value)
            ir = const("int64", value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise self.error(node, "non-finite float %r cannot be a kernel constant" % value)
            ir = const("fp32", value)
        elif isinstance(value, str):
            ir = const("str", value)
        elif value is None:
            ir = const("none", None)
        elif isinstance(value, DataType):
            missing = value.missing_from_torch()
            if missing:
                raise self.error(node, missing)
            ir = const("dtype", value.name)
        elif isinstance(value, (list, tuple)):
            ir = ir_nodes.list_(self.fold(node, v)[0] for v in value)
        else:
            raise self.error(node, "'%s' is a %s and cannot be used as a value in a kernel "
                             "(only int, float, bool, str, pl dtype and enum values and lists "
                             "of them are folded)" % (self.text(node), type(value).__name__))
        return ir, tys.of_pure(ir)

    def not_defined(self, node):
        if isinstance(node, ast.Name):
            return self.error(node, "name '%s' is not defined" % node.id)
        return self.error(node, "'%s' is not defined" % self.text(node))

    # -- dispatch -----------------------------------------------------------------------
    def visit(self, node, prefix):
        """Translate one AST node with the method named prefix + its type (`_e_` for an
        expression, `_s_` for a statement). The frontend's one error boundary: any other
        exception than a KernelCompileError is a bug of the frontend, and becomes a
        KernelCompileError at the innermost node being translated (the exception chained),
        so that it still points at the kernel source."""
        method = getattr(self, prefix + type(node).__name__, None)
        if method is None:
            raise self.error(node, unsupported(node))
        try:
            return method(node)
        except KernelCompileError:
            raise
        except Exception as exc:
            if not hasattr(node, "lineno"):  # a node the frontend made: its parent says where
                raise
            what = "statement" if prefix == "_s_" else "expression"
            raise self.error(node, "internal error in the frontend while translating this %s: "
                             "%s: %s" % (what, type(exc).__name__, exc)) from exc

    def texpr(self, node):
        """(IR, Ty) of an expression."""
        return self.visit(node, "_e_")

    def expr(self, node):
        return self.texpr(node)[0]

    def opt_texpr(self, node):
        return (None, UNKNOWN) if node is None else self.texpr(node)

    def _e_Constant(self, node):
        if node.value is Ellipsis or isinstance(node.value, (bytes, complex)):
            raise self.error(node, "unsupported constant %s" % self.text(node))
        return self.fold(node, node.value)

    def _e_Name(self, node):
        name = node.id
        sc = self.scope
        if name in sc.consts:
            return sc.consts[name]
        if self.is_local(name):
            slot = self.bind(name)
            ty = self.env.get(slot, UNKNOWN)
            if ty.dropped:
                raise self.error(node, ty.dropped)
            value = ty.known_value()
            if value is not None:
                return value, ty
            return ir_nodes.var(slot), ty
        value = sc.kernel.lookup(name)
        if value is MISSING:
            raise self.not_defined(node)
        return self.fold(node, value)

    # -- attributes: module constants, x.shape, x.dtype -----------------------------------
    def _e_Attribute(self, node):
        if self.is_static_chain(node):
            value = self.static_value(node)
            if value is MISSING:
                raise self.not_defined(node)
            return self.fold(node, value)
        if node.attr in ("shape", "dtype") and isinstance(node.value, ast.Name):
            base, ty = self.texpr(node.value)
            return self.shape_or_dtype(node, base, ty)
        raise self.error(node, "attribute '%s' is not supported in a kernel" % self.text(node))

    def shape_or_dtype(self, node, base, ty):
        name = node.value.id
        if not ty.is_tensor:
            what = ("a scalar" if ty.kind == "scalar" else
                    "not known to be a tensor at compile time")
            raise self.error(node, "'%s': '%s' is %s" % (self.text(node), name, what))
        if node.attr == "dtype":
            if ty.dtype is None or not ty.stable:
                raise self.error(node, "'%s': the dtype of '%s' is not known at compile time"
                                 % (self.text(node), name))
            ir = const("dtype", ty.dtype.name)
            return ir, tys.of_pure(ir)
        if ty.shape is None:
            raise self.error(node, "'%s': the shape of '%s' is not known at compile time"
                             % (self.text(node), name))
        items = []
        for axis, d in enumerate(ty.shape):
            if d is not None and ty.stable:
                items.append(const("int64", d))
            else:  # a pl.dynamic (or otherwise runtime) extent
                items.append(self.dim_call(base, axis))
        ir = ir_nodes.list_(items)
        return ir, Ty("list", value=ir if is_pure(ir) else None,
                      items=tuple(tys.of_pure(i) if is_pure(i) else tys.scalar(INT64)
                                  for i in items))

    @staticmethod
    def dim_call(base, axis):
        return ir_nodes.call("dim", [base, const("int64", axis)], {})

    # -- subscripts -----------------------------------------------------------------------
    def _e_Subscript(self, node):
        base, bty = self.texpr(node.value)
        if ir_nodes.is_sequence(base):
            return self._item(node, base, bty)
        if bty.kind == "array":
            return self.array_read(node, base, bty)
        index = self.index_list(node)
        ir = ir_nodes.subscript(base, index, self.text(node))
        return ir, self._subscript_ty(bty, index)

    def _item(self, node, base, bty):
        """`seq[i]` of a compile-time sequence (x.shape[i], a module tuple, ...)."""
        of_shape = isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
        idx, _ = self.texpr(node.slice) if not isinstance(node.slice, ast.Slice) else (None, None)
        if not ir_nodes.is_compile_time_int(idx):
            raise self.error(node, "'%s': the index of %s must be a compile-time int"
                             % (self.text(node), ".shape" if of_shape else "a list"))
        i, n = idx["v"], len(base["items"])
        if not -n <= i < n:
            raise self.error(node, "'%s': index %d out of range for a %d-d tensor"
                             % (self.text(node), i, n) if of_shape else
                             "'%s': index %d out of range for a list of %d items"
                             % (self.text(node), i, n))
        item = base["items"][i]
        if bty.items is not None and len(bty.items) == n:
            return item, bty.items[i]
        return item, tys.of_pure(item) if is_pure(item) else UNKNOWN

    def index_list(self, node):
        """IDX list of a subscript (read or write target)."""
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out = []
        for item in items:
            if isinstance(item, ast.Slice):
                if item.step is not None:
                    raise self.error(node, "slice steps are not supported in kernel subscripts "
                                     "('%s')" % self.text(node))
                lo = self.opt_texpr(item.lower)[0]
                hi = self.opt_texpr(item.upper)[0]
                out.append(ir_nodes.slice_idx(lo, hi))
            else:
                out.append(ir_nodes.index_idx(self.texpr(item)[0]))
        return out

    @staticmethod
    def _subscript_ty(bty, index):
        if not bty.is_tensor:
            return UNKNOWN
        shape = bty.shape
        if shape is not None and len(index) <= len(shape):
            if len(index) == len(shape) and all(map(ir_nodes.is_index_idx, index)):
                return tys.scalar(bty.dtype)
            out = []
            for axis, d in enumerate(shape):
                if axis >= len(index):
                    out.append(d if bty.stable else None)
                    continue
                i = index[axis]
                if ir_nodes.is_index_idx(i):
                    continue
                lo, hi = i["lo"], i["hi"]
                lo_v = 0 if lo is None else (lo["v"] if is_const(lo) else None)
                hi_v = (d if bty.stable else None) if hi is None else (
                    hi["v"] if is_const(hi) else None)
                ok = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                         for v in (lo_v, hi_v))
                out.append(hi_v - lo_v if ok and hi_v >= lo_v else None)
            return tys.tensor(bty.dtype, out)
        return tys.tensor(bty.dtype)

    # -- operators ------------------------------------------------------------------------
    def _bad_operator(self, node, op):
        return self.error(node, "operator '%s' is not supported in a kernel"
                          % _OP_SYMBOLS.get(type(op), type(op).__name__))

    def _e_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self._bad_operator(node, node.op)
        lhs, lty = self.texpr(node.left)
        rhs, rty = self.texpr(node.right)
        self._no_task_id_math(node, lty, rty)
        if lty.is_tensor or rty.is_tensor:
            return self._tensor_binop(node, op, lhs, lty, rhs, rty)
        folded = tys.fold_binop(op, lhs, rhs)
        if folded is not None:
            return folded, tys.of_pure(folded)
        dtype = lty.dtype if lty.dtype is rty.dtype else None
        return ir_nodes.binop(op, lhs, rhs), tys.scalar(dtype)

    def _no_task_id_math(self, node, *types):
        """Task ids and arrays are opaque to arithmetic (PyPTO has no operators on them)."""
        for ty in types:
            if ty.kind == "array" or is_task_id(ty):
                raise self.error(node, "'%s': %s cannot be used in arithmetic"
                                 % (self.text(node), "a pl.Array" if ty.kind == "array"
                                    else "a task id (pl.TASK_ID)"))

    def _tensor_binop(self, node, op, lhs, lty, rhs, rty):
        if op not in _TENSOR_BINOPS:
            raise self.error(node, "operator '%s' is not supported on tensors ('%s')"
                             % (_OP_SYMBOLS[type(node.op)], self.text(node)))
        if not self.incore:
            raise self.error(node, _INCORE_BINOP_TEXT % self.text(node))
        if lty.is_tensor and rty.is_tensor and lty.dtype and rty.dtype \
                and lty.dtype is not rty.dtype:
            raise self.error(node, "'%s': the operands have different dtypes (%s and %s); the "
                             "hardware does not convert implicitly, pl.cast one of them first"
                             % (self.text(node), lty.dtype, rty.dtype))
        ty = tys.tensor(lty.dtype) if lty.is_tensor else tys.tensor()
        if lty.is_tensor and (not rty.is_tensor or rty.shape == lty.shape):
            ty = tys.tensor(lty.dtype, lty.shape if lty.stable else None)
        return ir_nodes.binop(op, lhs, rhs), ty

    def _e_Compare(self, node):
        if len(node.ops) != 1:
            raise self.error(node, "chained comparison '%s' is not supported; combine single "
                             "comparisons with 'and'" % self.text(node))
        cmp = node.ops[0]
        lhs, lty = self.texpr(node.left)
        rhs, rty = self.texpr(node.comparators[0])
        if isinstance(cmp, (ast.Is, ast.IsNot)):  # `opt is None` on compile-time values
            if not (is_pure(lhs) and is_pure(rhs)):
                raise self.error(node, "'%s': 'is' / 'is not' only compare compile-time values"
                                 % self.text(node))
            same = lhs == rhs
            ir = const("bool", same if isinstance(cmp, ast.Is) else not same)
            return ir, tys.of_pure(ir)
        op = _CMPOPS.get(type(cmp))
        if op is None:
            raise self._bad_operator(node, cmp)
        self._no_task_id_math(node, lty, rty)
        folded = tys.fold_binop(op, lhs, rhs)
        if folded is not None:
            return folded, tys.of_pure(folded)
        ty = tys.tensor(lty.dtype) if lty.is_tensor else tys.scalar(BOOL)
        return ir_nodes.binop(op, lhs, rhs), ty

    def _e_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        result, _ = self.texpr(node.values[0])
        for value in node.values[1:]:
            folded, rhs = tys.fold_boolop(op, result, lambda v=value: self.texpr(v)[0])
            if folded is not None and rhs is None:
                result = folded  # decided by a compile-time lhs: the rest is never evaluated
                break
            result = folded or ir_nodes.binop(op, result, rhs)
        ty = tys.of_pure(result) if is_pure(result) else tys.scalar(BOOL)
        return result, ty

    def _e_UnaryOp(self, node):
        if isinstance(node.op, ast.UAdd):
            return self.texpr(node.operand)
        if isinstance(node.op, ast.USub):
            if isinstance(node.operand, ast.Constant) and not isinstance(node.operand.value, bool) \
                    and isinstance(node.operand.value, (int, float)):
                return self.fold(node, -node.operand.value)  # a negative literal
            operand, ty = self.texpr(node.operand)
            folded = tys.fold_unary("neg", operand)
            if folded is not None:
                return folded, tys.of_pure(folded)
            return ir_nodes.unary("neg", operand), ty.replace(value=None)
        if isinstance(node.op, ast.Not):
            operand, _ = self.texpr(node.operand)
            folded = tys.fold_unary("not", operand)
            if folded is not None:
                return folded, tys.of_pure(folded)
            return ir_nodes.unary("not", operand), tys.scalar(BOOL)
        raise self._bad_operator(node, node.op)

    def _e_Tuple(self, node):
        pairs = [self.texpr(e) for e in node.elts]
        ir = ir_nodes.tuple_(p[0] for p in pairs)
        return ir, Ty("tuple", value=ir if is_pure(ir) else None,
                      items=tuple(p[1] for p in pairs))

    def _e_List(self, node):
        pairs = [self.texpr(e) for e in node.elts]
        ir = ir_nodes.list_(p[0] for p in pairs)
        return ir, Ty("list", value=ir if is_pure(ir) else None,
                      items=tuple(p[1] for p in pairs))

    # -- calls --------------------------------------------------------------------------
    def unknown_op(self, node, func):
        spelled = self.text(func)
        known = ["pl.%s" % n for n in list(op_table.OPS) + list(constructs.FRONTEND_OPS)]
        attr = spelled.rsplit(".", 1)[-1]
        close = difflib.get_close_matches("pl." + attr, known, n=1, cutoff=0.8)
        hint = " (did you mean %s?)" % close[0] if close and close[0] != spelled else ""
        return self.error(node, "unknown op '%s'%s" % (spelled, hint))

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
                if _is_language_object(self.static_value(base)):
                    raise self.unknown_op(node, func)
            raise self.not_defined(func)
        raise self.error(node, "call to '%s' is not supported in a kernel: only pl.<op>(...) "
                         "calls and calls of @pl.jit.inline / @pl.jit.incore functions are "
                         "allowed" % self.text(func))

    def _e_Call(self, node):
        func = node.func
        sc = self.scope
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and sc.self_name is not None and func.value.id == sc.self_name:
            return self.splice_call(node, self.program_callee(node, func.attr))
        if isinstance(func, ast.Attribute) and func.attr == "bind_dynamic" \
                and isinstance(func.value, ast.Name) and self.is_local(func.value.id):
            return self.fold(node, None)  # a marker for the JIT, no effect here
        fn = self.callee(node)
        special = getattr(fn, "_pypto_special", None)
        if special is not None:
            return self.special_call(node, special)
        op = getattr(fn, "_pypto_op", None)
        if op is not None:
            return self.op_call(node, op)
        if getattr(fn, "_pypto_system", None):
            return self.fold(node, None)  # barriers / cache plumbing: no effect
        task = getattr(fn, "_pypto_task", None)
        if task is not None:
            return self.task_call(node, task)
        prefetch = getattr(fn, "_pypto_prefetch", None)
        if prefetch is not None:
            return self.prefetch_call(node, prefetch)
        name = self.text(func)
        if getattr(fn, "_pypto_loop", None):
            raise self.error(node, "%s(...) can only be used as a for-loop iterator" % name)
        if getattr(fn, "_pypto_region", None):
            raise self.error(node, "%s(...) can only be used in a 'with' statement" % name)
        if hasattr(fn, "unsupported_message"):  # @pl.jit.extern / host / opaque
            raise self.error(node, fn.unsupported_message())
        describe = getattr(fn, "_pypto_callee", None)
        if describe is not None:
            callee = describe()
            if callee is None:
                raise self.entry_kernel_error(node, name)
            return self.splice_call(node, callee)
        raise self.error(node, "call to '%s' is not supported in a kernel: only pl.<op>(...) "
                         "calls and calls of @pl.jit.inline / @pl.jit.incore functions are "
                         "allowed" % name)

    def call_args(self, node, params, required, keywords, label):
        """Map a call's arguments onto (positional params, keyword-only names): returns
        ([AST node per given positional param, in order], {keyword: AST node})."""
        if any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            raise self.error(node, "%s: *args / **kwargs are not supported in kernel calls" % label)
        count = len(node.args) + sum(1 for kw in node.keywords if kw.arg in params)
        if len(node.args) > len(params):
            raise self._arity_error(node, params, required, label, count)
        given = dict(zip(params, node.args))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg in params:
                if kw.arg in given:
                    raise self.error(node, "%s got multiple values for argument '%s'"
                                     % (label, kw.arg))
                given[kw.arg] = kw.value
            elif kw.arg in keywords:
                kwargs[kw.arg] = kw.value
            else:
                raise self.error(node, "%s got an unexpected keyword argument '%s'"
                                 % (label, kw.arg))
        ordered = []
        for p in params:  # positional params are passed without gaps
            if p not in given:
                break
            ordered.append(given[p])
        if len(ordered) < required or len(ordered) != count:
            raise self._arity_error(node, params, required, label, count)
        return ordered, kwargs

    def _arity_error(self, node, params, required, label, count):
        if required == len(params):
            takes = "%d argument%s" % (required, "" if required == 1 else "s")
        else:
            takes = "%d to %d arguments" % (required, len(params))
        return self.error(node, "%s takes %s (%s), got %d"
                          % (label, takes, ", ".join(params), count))

    def op_arg(self, node):
        """An op argument: tuples are lists (shapes, offsets) per the IR conventions."""
        ir, ty = self.texpr(node)
        if ir_nodes.is_tuple(ir):
            ir = ir_nodes.list_(ir["items"])
            ty = ty.replace(kind="list", value=ir if is_pure(ir) else None)
        return ir, ty

    def op_call(self, node, op):
        if op == "tile_matmul":
            return self._tile_matmul(node)
        spec = op_table.OPS.get(op) or op_table.PLD_OPS.get(op)
        if spec is None:  # a frontend op (`dim`) the op table does not list yet
            spec = op_table.OpSpec(params=("x", "axis"), required=2, keywords=())
        label = "%s()" % self.text(node.func)
        ordered, kw_nodes = self.call_args(node, spec.params, spec.required, spec.keywords,
                                           label)
        args = [self.op_arg(a) for a in ordered]
        kwargs = {k: self.op_arg(v) for k, v in kw_nodes.items()}
        named = dict(zip(spec.params, args))
        named.update(kwargs)
        if op == "dim":
            folded = self._fold_dim(node, args)
            if folded is not None:
                return folded
        self._check_plane(node, op, args, kwargs)
        ty = self._op_result(node, op, label, args, named)
        ir = ir_nodes.call(op, [a[0] for a in args], {k: v[0] for k, v in kwargs.items()})
        return ir, ty

    def _tile_matmul(self, node):
        """pl.tile.matmul(lhs, rhs): a matmul whose result is the accumulator's dtype."""
        label = "%s()" % self.text(node.func)
        ordered, _ = self.call_args(node, ("lhs", "rhs"), 2, (), label)
        args = [self.op_arg(a) for a in ordered]
        self._check_plane(node, "matmul", args, {})
        inputs = self._matmul_ty(node, "matmul", label, args, {}).dtype
        if inputs is None:
            raise self.error(node, "%s: the operands' dtype is not known at compile time, so the "
                             "accumulator's (FP32 or INT32) is not either; use pl.matmul(lhs, rhs, "
                             "out_dtype=...)" % label)
        out = "fp32" if inputs.is_float else "int32"
        ir = ir_nodes.call("matmul", [a[0] for a in args], {"out_dtype": const("dtype", out)})
        return ir, tys.tensor(BY_NAME[out])

    def _fold_dim(self, node, args):
        (base, bty), (axis, _) = args
        if not bty.is_tensor or bty.shape is None or not ir_nodes.is_compile_time_int(axis):
            return None
        rank, a = len(bty.shape), axis["v"]
        if not -rank <= a < rank:
            raise self.error(node, "'%s': axis %d out of range for a %d-d tensor"
                             % (self.text(node), a, rank))
        a %= rank
        d = bty.shape[a]
        if d is None or not bty.stable:
            args[1] = (const("int64", a), args[1][1])
            return None
        ir = const("int64", d)
        return ir, tys.of_pure(ir)

    def _check_plane(self, node, op, args, kwargs):
        host = self.host
        if op in op_table.PLD_OPS:
            if host and op not in _HOST_OPS:
                raise self.error(node, "%s() runs on a device: call it in the chip program that "
                                 "the @pl.jit.host program launches with device=, not in the host "
                                 "program" % self.text(node.func))
            if not host and op in _HOST_OPS:
                raise self.error(node, "%s() belongs in the @pl.jit.host program, which allocates the "
                                 "window buffers and hands their views to the chip programs it "
                                 "launches" % self.text(node.func))
            return
        if host:
            if any(t.is_tensor for _, t in args) or any(t.is_tensor for _, t in kwargs.values()) \
                    or op in _INCORE_PRODUCERS:
                raise self.error(node, "%s() computes on tensors, which a @pl.jit.host program "
                                 "cannot do: it launches chip programs (chip(..., device=r)) and "
                                 "hands them views of its tensors" % self.text(node.func))
            return
        if self.incore or op in ORCHESTRATION_OPS or op.startswith("array_"):
            return  # arrays live on either plane
        on_tensor = any(t.is_tensor for _, t in args) or any(t.is_tensor for _, t in
                                                              kwargs.values())
        if on_tensor or op in _INCORE_PRODUCERS:
            raise self.error(node, "%s() is a tensor op and must be inside %s; outside one only "
                             "%s are allowed" % (self.text(node.func), _INCORE_WHERE,
                                                 _ORCHESTRATION_TEXT))

    def _op_result(self, node, op, label, args, named):
        """Static type of an op's result, with the dtype checks the hardware would make."""
        first = args[0][1] if args else UNKNOWN
        if op in _SAME_DTYPE_BINARY or op.startswith(("row_expand_", "col_expand_")):
            if len(args) >= 2:
                a, b = args[0][1], args[1][1]
                if a.is_tensor and b.is_tensor and a.dtype and b.dtype and a.dtype is not b.dtype:
                    raise self.error(node, "%s: the operands have different dtypes (%s and %s); "
                                     "the hardware does not convert implicitly, pl.cast one of "
                                     "them first" % (label, a.dtype, b.dtype))
        if op in ("matmul", "matmul_acc"):
            return self._matmul_ty(node, op, label, args, named)
        if op in op_table.PLD_OPS:
            return self._distributed_ty(op, args, named)
        if op.startswith("array_"):
            return self.array_op_ty(node, op, label, args)
        if op == "read":
            return tys.scalar(first.dtype if first.is_tensor else None)
        if op == "dim":
            return tys.scalar(INT64)
        if op in ("min", "max"):
            b = args[1][1] if len(args) > 1 else UNKNOWN
            return tys.scalar(first.dtype if first.dtype is b.dtype else None)
        if op == "write":
            return Ty("none")
        if op in _DTYPE_ARG:
            dtype = _dtype_of_ir(_arg_ir(args, named, _DTYPE_ARG[op], _DTYPE_NAMES))
            if op == "cast" and not first.is_tensor:
                return tys.scalar(dtype) if first.kind == "scalar" else UNKNOWN
            shape = first.shape if (op == "cast" and first.stable) else None
            if op in _SHAPE_ARG:
                shape = self._const_shape(_arg_ir(args, named, _SHAPE_ARG[op], ("shape",)))
            return tys.tensor(dtype, shape)
        if not first.is_tensor:
            return UNKNOWN
        dtype = first.dtype if op in _KEEP_DTYPE or op.startswith(
            ("row_expand_", "col_expand_")) else None
        shape = None
        if op in _KEEP_SHAPE and first.stable:
            rest = [t for _, t in args[1:2]]
            if not rest or not rest[0].is_tensor or rest[0].shape == first.shape:
                shape = first.shape
        if op == "reshape":
            shape = self._const_shape(_arg_ir(args, named, 1, ("shape",)))
        return tys.tensor(dtype, shape)

    def _distributed_ty(self, op, args, named):
        if op == "window_alloc":
            return Ty("window_buffer")
        if op == "window_view":
            dtype = _dtype_of_ir(named["dtype"][0]) if "dtype" in named else None
            return tys.tensor(dtype, self._const_shape(_arg_ir(args, named, 1, ("shape",))))
        if op == "remote_load":
            target = args[0][1]
            return tys.tensor(target.dtype if target.is_tensor else None,
                              self._const_shape(_arg_ir(args, named, 3, ("shape",))))
        return Ty("none")

    @staticmethod
    def _const_shape(ir):
        if not ir_nodes.is_sequence(ir):
            return None
        return tuple(i["v"] if ir_nodes.is_compile_time_int(i) else None for i in ir["items"])

    def _matmul_ty(self, node, op, label, args, named):
        names = ("lhs", "rhs") if op == "matmul" else ("acc", "lhs", "rhs")
        tys_ = {n: args[i][1] if i < len(args) else UNKNOWN for i, n in enumerate(names)}
        lhs, rhs = tys_["lhs"], tys_["rhs"]
        if lhs.dtype and rhs.dtype and lhs.is_tensor and rhs.is_tensor \
                and lhs.dtype is not rhs.dtype:
            raise self.error(node, "%s: lhs and rhs must have the same dtype, got %s and %s"
                             % (label, lhs.dtype, rhs.dtype))
        inputs = lhs.dtype if lhs.is_tensor and lhs.dtype is rhs.dtype else None
        if op == "matmul_acc":
            acc = tys_["acc"]
            if acc.is_tensor and acc.dtype and inputs is not None:
                need = "fp32" if inputs.is_float else "int32"
                if acc.dtype.name != need:
                    raise self.error(node, "%s: the accumulator is %s but %s inputs accumulate in "
                                     "%s; create it as pl.%s (or start it with pl.matmul(..., "
                                     "out_dtype=pl.%s))"
                                     % (label, acc.dtype, inputs, need.upper(), need.upper(),
                                        need.upper()))
            return tys.tensor(acc.dtype if acc.is_tensor else None,
                              acc.shape if acc.is_tensor and acc.stable else None)
        out = _dtype_of_ir(named.get("out_dtype", (None, None))[0]) or inputs
        return tys.tensor(out)

    # -- frontend specials --------------------------------------------------------------
    def special_call(self, node, name):
        label = "%s()" % self.text(node.func)
        if name in ("get_block_idx", "get_block_num", "get_subblock_idx"):
            if node.args or node.keywords:
                raise self.error(node, "%s takes no arguments" % label)
            if name == "get_subblock_idx":
                return self.subblock_idx(node, label)
            if not self.spmd:
                ir = const("int64", 1 if name == "get_block_num" else 0)
                return ir, tys.of_pure(ir)
            var, num = self.spmd[-1]
            if name == "get_block_idx":
                return var, tys.scalar(INDEX)
            return num, (tys.of_pure(num) if is_pure(num) else tys.scalar(INDEX))
        if name in ("no_dep", "dump_tag"):
            if len(node.args) != 1 or node.keywords:
                raise self.error(node, "%s takes 1 argument" % label)
            return self.texpr(node.args[0])
        if name == "const":
            ordered, _ = self.call_args(node, ("value", "dtype"), 2, (), label)
            value, _ = self.texpr(ordered[0])
            dtype = _dtype_of_ir(self.texpr(ordered[1])[0])
            if not is_const(value, ("int64", "fp32", "bool")) or dtype is None:
                raise self.error(node, "%s needs a literal number and a pl dtype" % label)
            v = value["v"]
            ir = const(dtype.name, float(v) if dtype.is_float else int(v))
            return ir, tys.of_pure(ir)
        if name == "static_assert":
            ordered, _ = self.call_args(node, ("condition", "msg"), 1, (), label)
            cond, _ = self.texpr(ordered[0])
            truth = tys.truth(cond)
            if truth is None:
                raise self.error(node, "%s: '%s' is not known at compile time"
                                 % (label, self.text(ordered[0])))
            if not truth:
                msg = ""
                if len(ordered) > 1:  # a compile-time value, else the message's own source
                    msg_ir = self.texpr(ordered[1])[0]
                    msg = msg_ir["v"] if is_const(msg_ir) else self.text(ordered[1])
                raise self.error(node, "static assertion failed: %s"
                                 % (msg or self.text(ordered[0])))
            return self.fold(node, None)
        if name == "static_print":
            parts = []
            for a in node.args:
                ir, ty = self.texpr(a)
                if is_const(ir, "str") and isinstance(a, ast.Constant):
                    parts.append(ir["v"])
                else:
                    parts.append("%s = %s" % (self.text(a), _describe(ir, ty)))
            line = self.scope.line or node.lineno
            print("[static_print] %s:%d: %s" % (self.scope.kernel.source_file, line,
                                                " ".join(parts)))
            return self.fold(node, None)
        if name == "world_size":
            if node.args or node.keywords:
                raise self.error(node, "%s takes no arguments" % label)
            if self.devices is None:
                raise self.error(node, "%s is the number of ranks of a @pl.jit.host program; it "
                                 "has no meaning in a chip or single-device kernel (pass the rank "
                                 "or the world size as a scalar)" % label)
            ir = const("int64", len(self.devices))
            return ir, tys.of_pure(ir)
        if name == "aiv_shard":
            return self.aiv_shard(node, label)
        if name == "aic_gather":
            raise self.error(node, "%s (the AIV lanes' values handed back to the cube) is not "
                             "supported by the simulator; store each lane's result into a tensor "
                             "instead" % label)
        if name == "spmd_submit":
            raise self.error(node, "pl.spmd_submit(...) must be unpacked as a 2-tuple: "
                             "`out, tid = pl.spmd_submit(self.kernel, ..., core_num=N)`")
        if name == "yield_":
            raise self.error(node, "pl.yield_(...) must be a statement of its own or the whole "
                             "right-hand side of an assignment")
        raise self.error(node, "%s is not supported in a kernel" % label)


def _describe(ir, ty):
    if is_const(ir):
        return repr(ir["v"])
    if ty.is_tensor:
        dims = "?" if ty.shape is None else ", ".join("?" if d is None else str(d)
                                                     for d in ty.shape)
        return "tensor[[%s], %s]" % (dims, ty.dtype or "?")
    if ty.kind == "scalar":
        return "scalar[%s]" % (ty.dtype or "?")
    return ty.kind or "unknown"


def _arg_ir(args, named, index, names):
    """IR of an op argument by position, else by one of its keyword names."""
    if index < len(args):
        return args[index][0]
    for n in names:
        if n in named:
            return named[n][0]
    return None
