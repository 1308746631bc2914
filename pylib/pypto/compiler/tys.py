"""What the frontend knows statically about a value: its kind, dtype and shape where known,
and its compile-time value (an IR constant) where there is one. Used for folding
(`x.shape`, `x.dtype`, compile-time conditions) and for the checks the hardware compiler
would make (plane, dtype). Unknown is always safe: it folds nothing and checks nothing."""

from pypto.compiler import ir_nodes
from pypto.compiler.ir_nodes import const, is_const, is_integral_const, wrap_int64
from pypto.language import dtypes

_WIDE_INTS = ("int64", "index")


class Ty:
    """kind: None (unknown), "tensor", "scalar", "str", "dtype", "none", "list", "tuple", or
    a handle kind of HANDLE_NAMES.
    shape: tuple of int / None (unknown extent) or None (unknown rank). value: an IR node
    that is a compile-time constant, or None. stable: False for a name whose value may come
    from an earlier loop iteration (then nothing about it is folded). dropped: why reading
    the name is an error (it was rebound in a loop whose iterations do not carry values
    out), or None."""

    __slots__ = ("kind", "dtype", "shape", "value", "items", "stable", "dropped")

    def __init__(self, kind=None, dtype=None, shape=None, value=None, items=None, stable=True,
                 dropped=None):
        self.kind, self.dtype, self.shape = kind, dtype, shape
        self.value, self.items, self.stable = value, items, stable
        self.dropped = dropped

    def replace(self, **fields):
        t = Ty(self.kind, self.dtype, self.shape, self.value, self.items, self.stable,
               self.dropped)
        for k, v in fields.items():
            setattr(t, k, v)
        return t

    @property
    def is_tensor(self):
        return self.kind == "tensor"

    def known_value(self):
        """The compile-time value (IR const/list node), only when it cannot be stale."""
        return self.value if self.stable else None

    def __repr__(self):
        return "Ty(%s, %s, %s, value=%r, stable=%s)" % (self.kind, self.dtype, self.shape,
                                                       self.value, self.stable)


UNKNOWN = Ty()

# What error messages call a value of each handle kind (pl.prefetch's opaque results).
HANDLE_NAMES = {"prefetch_context": "a PrefetchAsyncContext", "async_event": "an AsyncEvent",
                "async_session": "an AsyncSession"}


def describe(ty):
    """'a tensor', 'a int64 scalar', ...: what a value is, for error messages."""
    if ty.kind == "scalar":
        return "a %s scalar" % (ty.dtype or "scalar of unknown dtype")
    if ty.kind == "array":
        return "a pl.Array of %s" % ty.dtype
    if ty.is_tensor:
        return "a tensor"
    if ty.kind in HANDLE_NAMES:
        return HANDLE_NAMES[ty.kind]
    return "a %s" % (ty.kind or "value of unknown type")


def tensor(dtype=None, shape=None):
    return Ty("tensor", dtype, None if shape is None else tuple(shape))


def scalar(dtype=None, value=None):
    return Ty("scalar", dtype, value=value)


def of_pure(ir):
    """The Ty of a compile-time IR value."""
    if ir_nodes.is_sequence(ir):
        return Ty(ir_nodes.expr_kind(ir), value=ir, items=tuple(of_pure(i) for i in ir["items"]))
    d = ir["dtype"]
    if d in ("str", "dtype", "none"):
        return Ty(d, value=ir)
    return scalar(dtypes.BY_NAME.get(d), ir)


def join(a, b):
    """What is known after two paths meet. `None` = the name is unbound on that path."""
    if a is None or b is None:
        t = a or b
        return None if t is None else t.replace(value=None)
    if a is b:
        return a
    dropped = a.dropped or b.dropped  # dropped on one path: reading it may see the drop
    if a.kind != b.kind:
        return UNKNOWN.replace(dropped=dropped) if dropped else UNKNOWN
    items = None
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        items = tuple(join(x, y) for x, y in zip(a.items, b.items))
    return Ty(a.kind, a.dtype if a.dtype is b.dtype else None,
              a.shape if a.shape == b.shape else None,
              a.value if a.value == b.value else None, items, a.stable and b.stable, dropped)


def truth(ir):
    """Python truth of a compile-time condition, or None when it is not one."""
    if is_integral_const(ir):
        return bool(ir["v"])
    if is_const(ir, "none"):
        return False
    return None


def fold_binop(op, lhs, rhs):
    """The const node of `lhs op rhs` when both are constants and the simulator would
    compute exactly this (int64 arithmetic, integer comparisons, str/dtype equality)."""
    if not (is_const(lhs) and is_const(rhs)):
        return None
    a, b = lhs["v"], rhs["v"]
    if is_integral_const(lhs) and is_integral_const(rhs):
        if op in ("eq", "ne", "lt", "le", "gt", "ge"):
            return const("bool", {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b,
                                  "gt": a > b, "ge": a >= b}[op])
        if lhs["dtype"] not in _WIDE_INTS and rhs["dtype"] not in _WIDE_INTS:
            return None  # narrower int arithmetic: leave it to the simulator's rules
        a, b = int(a), int(b)
        if op == "add":
            return const("int64", wrap_int64(a + b))
        if op == "sub":
            return const("int64", wrap_int64(a - b))
        if op == "mul":
            return const("int64", wrap_int64(a * b))
        if op in ("floordiv", "mod") and b != 0:
            return const("int64", wrap_int64(a // b if op == "floordiv" else a % b))
        return None
    same_kind = lhs["dtype"] == rhs["dtype"] and lhs["dtype"] in ("str", "dtype", "none")
    if same_kind and op in ("eq", "ne"):
        return const("bool", (a == b) == (op == "eq"))
    return None


def fold_boolop(op, lhs, rhs_thunk):
    """`lhs and rhs` / `lhs or rhs` as PyPTO means them: a BOOL, evaluated left to right
    and short-circuit, like Python's control flow (not Python's value: `n or 1` is True).
    Returns (const node or None, rhs node or None); `rhs_thunk()` translates the right
    side, and is not called when a compile-time lhs already decides the result."""
    t = truth(lhs)
    if t is not None and t == (op == "or"):
        return const("bool", t), None
    rhs = rhs_thunk()
    rt = truth(rhs)
    if t is not None and rt is not None:
        return const("bool", rt), rhs
    return None, rhs


def fold_unary(op, operand):
    if not is_integral_const(operand):
        return None
    if op == "not":
        return const("bool", not operand["v"])
    if op == "neg" and operand["dtype"] in _WIDE_INTS:
        return const("int64", wrap_int64(-int(operand["v"])))
    return None
