"""Constructors and predicates of sim_program IR nodes, one per row of host/sim/IR.md (EXPR,
IDX and STMT). The rest of the frontend builds and inspects IR only through these, so the
node shapes live in one place. Keys are inserted in the order IR.md lists them: the JSON
the frontend writes depends on it."""

from typing import Any, Iterable, Sequence

Expr = dict[str, Any]   # {"e": kind, ...}
Idx = dict[str, Any]    # {"k": "slice" | "index", ...}
Stmt = dict[str, Any]   # {"s": kind, "line": int, ...}

# The IR's integers are int64: Python ints outside this range cannot be constants.
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# Dtypes of a constant that can index a list or be an axis or an extent.
_INDEX_DTYPES = ("int64", "int32", "index")
# Dtypes whose constants are integers to Python (truth, integer folding).
_INTEGRAL_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "index", "bool")


def fits_int64(v: int) -> bool:
    return INT64_MIN <= v <= INT64_MAX


def wrap_int64(v: int) -> int:
    """v modulo 2**64 in int64's range: what the simulator's int64 arithmetic gives."""
    return (v - INT64_MIN) % (1 << 64) + INT64_MIN


# -- EXPR ---------------------------------------------------------------------------------
def const(dtype: str, v: Any) -> Expr:
    return {"e": "const", "dtype": dtype, "v": v}


def var(slot: int) -> Expr:
    return {"e": "var", "slot": slot}


def binop(op: str, lhs: Expr, rhs: Expr) -> Expr:
    return {"e": "binop", "op": op, "lhs": lhs, "rhs": rhs}


def unary(op: str, operand: Expr) -> Expr:
    return {"e": "unary", "op": op, "operand": operand}


def subscript(base: Expr, index: list[Idx], text: str) -> Expr:
    return {"e": "subscript", "base": base, "index": index, "text": text}


def call(op: str, args: list[Expr], kwargs: dict[str, Expr]) -> Expr:
    return {"e": "call", "op": op, "args": args, "kwargs": kwargs}


def tuple_(items: Iterable[Expr]) -> Expr:
    return {"e": "tuple", "items": list(items)}


def list_(items: Iterable[Expr]) -> Expr:
    return {"e": "list", "items": list(items)}


def is_const(ir: Expr | None, dtype: str | Sequence[str] | None = None) -> bool:
    """A `const` node (of `dtype`, or of one of the dtypes given)."""
    if ir is None or ir["e"] != "const":
        return False
    if dtype is None:
        return True
    return ir["dtype"] == dtype if isinstance(dtype, str) else ir["dtype"] in dtype


def is_var(ir: Expr | None, slot: int | None = None) -> bool:
    """A `var` node (reading `slot`, when given)."""
    return ir is not None and ir["e"] == "var" and (slot is None or ir["slot"] == slot)


def is_call(ir: Expr | None) -> bool:
    return ir is not None and ir["e"] == "call"


# Ops whose result is the tensor (array) they write in place: op -> position of that argument.
_RETURNS_TARGET = {"assemble": 0, "store": 2, "array_update_element": 0}


def written_target(ir: Expr | None) -> Expr | None:
    """The argument a write-in-place call returns (`pl.assemble(buf, ...)` -> `buf`), else
    None."""
    pos = _RETURNS_TARGET.get(ir["op"]) if is_call(ir) else None
    return ir["args"][pos] if pos is not None and len(ir["args"]) > pos else None


def is_tuple(ir: Expr | None) -> bool:
    return ir is not None and ir["e"] == "tuple"


def is_sequence(ir: Expr | None) -> bool:
    """A `list` or `tuple` node (both have `items`)."""
    return ir is not None and ir["e"] in ("list", "tuple")


def is_compile_time_int(ir: Expr | None) -> bool:
    """A constant that can be a list index, an axis or an extent."""
    return is_const(ir, _INDEX_DTYPES)


def is_integral_const(ir: Expr | None) -> bool:
    """A constant Python treats as an int (any integer dtype or bool)."""
    return is_const(ir, _INTEGRAL_DTYPES)


def is_pure(ir: Expr) -> bool:
    """A node whose value is known at compile time: a const, or a list/tuple of them."""
    if is_const(ir):
        return True
    return is_sequence(ir) and all(is_pure(i) for i in ir["items"])


def expr_kind(ir: Expr) -> str:
    return ir["e"]


# -- IDX ----------------------------------------------------------------------------------
def slice_idx(lo: Expr | None, hi: Expr | None) -> Idx:
    return {"k": "slice", "lo": lo, "hi": hi}


def index_idx(v: Expr) -> Idx:
    return {"k": "index", "v": v}


def is_index_idx(i: Idx) -> bool:
    return i["k"] == "index"


# -- STMT ---------------------------------------------------------------------------------
def for_(line: int, kind: str, var: int, start: Expr, stop: Expr, step: Expr,
         body: list[Stmt], ordered: bool = False, task: dict | None = None,
         joins: list[tuple[int, int]] = ()) -> Stmt:
    """`ordered` (parallel / spmd only, written only when true): the iterations are linked
    through an array and run in order. `task` (spmd only): the launch's task fields (see
    task_fields). `joins` (parallel / spmd only): (slot, task id) of the task ids the
    iterations bind to names read after the loop."""
    st = {"s": "for", "line": line, "kind": kind, "var": var, "start": start, "stop": stop,
          "step": step, "body": body}
    if ordered:
        st["ordered"] = True
    st.update(task or {})
    if joins:
        st["joins"] = [[slot, site] for slot, site in joins]
    return st


def task_fields(tid: int | None = None, deps: list[Expr] = (), manual: bool = False,
                no_dep: list[int] = ()) -> dict:
    """A submitted task's fields, each written only when set: `tid`, the slot its id is bound
    to (`with ... as tid`); `deps`, its deps= entries; `manual`, inside a pl.manual_scope;
    `no_dep` (an `at`'s), the slots of its no_dep_args= tensors."""
    out = {}
    if tid is not None:
        out["tid"] = tid
    if deps:
        out["deps"] = list(deps)
    if manual:
        out["manual"] = True
    if no_dep:
        out["no_dep"] = list(no_dep)
    return out


def at(line: int, name: str | None, body: list[Stmt], dumps: list[int] = (), part: int = 0,
       task: dict | None = None) -> Stmt:
    """`dumps`: slots whose tensors the task dumps at enable_dump_args=1 (written only when
    there are some). `part` (written only when not 0): the k-th part of one task split at
    barriers, named as its first part is. `task`: its task fields (see task_fields)."""
    node = {"s": "at", "line": line, "name": name, "body": body}
    if dumps:
        node["dumps"] = list(dumps)
    if part:
        node["part"] = part
    node.update(task or {})
    return node


def assign(line: int, slot: int, value: Expr) -> Stmt:
    return {"s": "assign", "line": line, "slot": slot, "value": value}


def unpack(line: int, slots: list[int], value: Expr) -> Stmt:
    return {"s": "unpack", "line": line, "slots": slots, "value": value}


def write(line: int, target: int, index: list[Idx], text: str, value: Expr) -> Stmt:
    return {"s": "write", "line": line, "target": target, "index": index, "text": text,
            "value": value}


def expr_stmt(line: int, value: Expr) -> Stmt:
    return {"s": "expr", "line": line, "value": value}


def barrier(line: int) -> Stmt:
    """pl.system.syncall(): all iterations of the enclosing parallel loop meet here."""
    return {"s": "barrier", "line": line}


def launch(line: int, rank: Expr, name: str, body: list[Stmt]) -> Stmt:
    """A @pl.jit.host program's `chip(..., device=rank)`: the chip program's body, started on
    that rank's device while the host goes on."""
    return {"s": "launch", "line": line, "rank": rank, "name": name, "body": body}


def join(line: int) -> Stmt:
    """The host waits for every chip program it launched."""
    return {"s": "join", "line": line}


def if_(line: int, cond: Expr, then: list[Stmt], orelse: list[Stmt]) -> Stmt:
    return {"s": "if", "line": line, "cond": cond, "then": then, "else": orelse}


def return_(line: int, values: list[Expr]) -> Stmt:
    return {"s": "return", "line": line, "values": values}


def stmt_kind(st: Stmt) -> str:
    return st["s"]


def blocks(st: Stmt) -> list[list[Stmt]]:
    """The statement lists nested in a statement (a loop's or region's body, both branches
    of an if)."""
    return [st[key] for key in ("body", "then", "else") if key in st]
