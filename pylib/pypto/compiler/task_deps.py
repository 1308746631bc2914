"""Manual dependencies: task ids (`with pl.at(...) as tid`, pl.system.task_dummy /
task_invalid), the `deps=` and `no_dep_args=` keywords of pl.at / pl.spmd, and which
parallel loops must still run in order.

PyPTO's meaning (python/pypto/language/parser/ast_parser.py, docs/en/dev/language/
02-manual_dependencies.md of the PyPTO repository): a task id names one submitted task;
`deps=[...]` adds "runs after" edges on top of the automatically derived ones. The
simulator runs tasks in program order, which meets every edge whose producer ran earlier
in the same iteration or before the loop; the one way a task can depend on a sibling
iteration of a pl.parallel / pl.spmd loop is through an array (a name rebound in such a
body is not seen by the other iterations), so such a loop is marked `ordered`.

Each task site gets its own positive number, the id its `tid` holds unless the task graph
is recorded (enable_dep_gen): then the task binds a fresh id of its own when it is submitted
(the IR's task fields: `tid`, `deps`, `manual`), and deps= names one execution of a task.
-1 is "no task". Nothing at run time waits on them."""

import ast

from pypto.compiler import ir_nodes, tys
from pypto.compiler.ir_nodes import const, is_const
from pypto.compiler.tys import Ty
from pypto.language.dtypes import TASK_ID

NO_TASK = -1
_DEPS_HINT = ("a TaskId variable, a TASK_ID array element (e.g. `arr[i]`), or None")


def is_task_id(ty):
    return ty.kind == "scalar" and ty.dtype is TASK_ID


def is_task_array(ty):
    return ty.kind == "array" and ty.dtype is TASK_ID


def _walk_exprs(obj, reads, writes):
    """Slots an IR subtree reads (`var` nodes) and writes in place (the array of
    array_update_element)."""
    if isinstance(obj, list):
        for item in obj:
            _walk_exprs(item, reads, writes)
        return
    if not isinstance(obj, dict):
        return
    if obj.get("e") == "var":
        reads.add(obj["slot"])
        return
    if obj.get("e") == "call" and obj["op"] == "array_update_element" and obj["args"] \
            and ir_nodes.is_var(obj["args"][0]):
        writes.add(obj["args"][0]["slot"])
        _walk_exprs(obj["args"][1:], reads, writes)
        _walk_exprs(obj["kwargs"], reads, writes)
        return
    for value in obj.values():
        _walk_exprs(value, reads, writes)


def arrays_linking_iterations(body, outer_arrays, given_new_values):
    """Slots of arrays from before a parallel loop (`outer_arrays`) that its body both
    reads and writes in place: one iteration may read what another wrote, so the
    iterations must run in order. An array the body creates afresh (`given_new_values`)
    is its iteration's own."""
    reads, writes = set(), set()
    _walk_exprs(body, reads, writes)
    return (reads & writes & set(outer_arrays)) - given_new_values(body, set(outer_arrays))


class TaskDepsMixin:
    """The task-id half of statements.FunctionTranslator."""

    def new_task_id(self):
        self.task_sites += 1
        ir = const("task_id", self.task_sites)
        return ir, tys.of_pure(ir)

    # -- deps= ------------------------------------------------------------------------
    def deps_entries(self, node, label, value):
        """Checks a `deps=` value as PyPTO does and returns the IR of its entries, which the
        task evaluates when it is submitted (array elements are bounds-checked then)."""
        if isinstance(value, ast.ListComp):
            entries = self._unroll_deps(node, label, value)
        elif isinstance(value, (ast.List, ast.Tuple)):
            entries = []
            for elt in value.elts:
                if isinstance(elt, ast.ListComp):
                    entries.extend(self._unroll_deps(node, label, elt))
                else:
                    entries.append((elt, None))
        else:
            raise self.error(value, "%s deps= must be a list / tuple / comprehension of TaskId "
                             "values, got '%s'" % (label, self.text(value)))
        out = []
        whole, per_element = None, None
        for elt, binding in entries:
            if isinstance(elt, ast.Constant) and elt.value is None:
                continue  # "no producer yet": no edge
            ir, ty = self._with_binding(binding, lambda e=elt: self.texpr(e))
            if is_const(ir, "none") or is_const(ir, "task_id") and ir["v"] == NO_TASK:
                continue
            if is_task_array(ty):
                whole = whole or elt
            elif is_task_id(ty):
                if ir_nodes.is_call(ir):
                    per_element = per_element or elt
            else:
                raise self.error(elt, "%s deps= entries must be %s, got '%s' (%s)"
                                 % (label, _DEPS_HINT, self.text(elt), tys.describe(ty)))
            if whole is not None and per_element is not None:
                raise self.error(elt, "%s deps= cannot mix a whole TASK_ID array ('%s') with "
                                 "per-element entries ('%s'); pass the array alone or index it "
                                 "slot by slot" % (label, self.text(whole), self.text(per_element)))
            out.append(ir)
        return out

    def _with_binding(self, binding, fn):
        """Runs fn with a comprehension variable bound to a compile-time int."""
        if binding is None:
            return fn()
        name, value = binding
        consts = self.scope.consts
        saved = consts.get(name)
        ir = const("int64", value)
        consts[name] = (ir, tys.of_pure(ir))
        try:
            return fn()
        finally:
            if saved is None:
                consts.pop(name, None)
            else:
                consts[name] = saved

    def _unroll_deps(self, node, label, comp):
        """`[arr[i] for i in range(N) if ...]`: unrolled at compile time, as PyPTO does."""
        if len(comp.generators) != 1:
            raise self.error(comp, "%s deps= comprehension supports a single `for` clause" % label)
        gen = comp.generators[0]
        if gen.is_async or not isinstance(gen.target, ast.Name):
            raise self.error(comp, "%s deps= comprehension target must be a single name" % label)
        values = self._compile_time_ints(label, gen.iter)
        name = gen.target.id
        out = []
        for v in values:
            keep = True
            for cond in gen.ifs:
                truth = tys.truth(self._with_binding((name, v), lambda c=cond: self.expr(c)))
                if truth is None:
                    raise self.error(cond, "%s deps= comprehension filter depends on a runtime "
                                     "value; cannot unroll it at compile time" % label)
                keep = keep and truth
            if keep:
                out.append((comp.elt, (name, v)))
        return out

    def _compile_time_ints(self, label, it):
        fn = self.static_value(it.func) if isinstance(it, ast.Call) else None
        if getattr(fn, "_pypto_loop", None):
            raise self.error(it, "%s deps= comprehension iterable is a DSL loop ('%s'); cannot "
                             "unroll it at compile time, use Python's range(...)"
                             % (label, self.text(it)))
        if fn is range:
            if it.keywords or not 1 <= len(it.args) <= 3:
                raise self.error(it, "%s deps= comprehension: range() takes 1 to 3 positional "
                                 "arguments" % label)
            bounds = [self.expr(a) for a in it.args]
            if not all(ir_nodes.is_compile_time_int(b) for b in bounds):
                raise self.error(it, "%s deps= comprehension iterable '%s' depends on a runtime "
                                 "value; cannot unroll it at compile time" % (label, self.text(it)))
            return list(range(*[b["v"] for b in bounds]))
        ir = self.expr(it)
        if ir_nodes.is_sequence(ir) and all(ir_nodes.is_compile_time_int(i) for i in ir["items"]):
            return [i["v"] for i in ir["items"]]
        raise self.error(it, "%s deps= comprehension iterable must be a compile-time range(...) "
                         "or sequence of ints, got '%s'" % (label, self.text(it)))

    def no_dep_args(self, label, value, keyword="no_dep_args"):
        """`no_dep_args=[t1, t2]`: tensors left out of automatic dependency tracking (and
        pl.spmd_submit's `dumps=[...]`, tensors to dump); each must be a bare tensor name.
        Returns the slots of those held in variables (the task graph leaves their windows
        out)."""
        if not isinstance(value, (ast.List, ast.Tuple)):
            raise self.error(value, "%s %s= must be a list of tensor names, got '%s'"
                             % (label, keyword, self.text(value)))
        slots = []
        for elt in value.elts:
            ir, ty = self.texpr(elt) if isinstance(elt, ast.Name) else (None, None)
            if ty is None or not ty.is_tensor:
                raise self.error(elt, "%s %s= entries must be tensor names, got '%s'%s"
                                 % (label, keyword, self.text(elt),
                                    "" if ty is None else " (%s)" % tys.describe(ty)))
            if ir_nodes.is_var(ir):
                slots.append(ir["slot"])
        return slots

    def task_fields(self, tid_slot=None, deps=(), no_dep=()):
        """The IR task fields of a task submitted here (ir_nodes.task_fields)."""
        return ir_nodes.task_fields(tid_slot, deps, manual=self.manual_scopes > 0, no_dep=no_dep)

    def bind_task_id(self, node, name):
        """`... as tid` / `out, tid = pl.spmd_submit(...)`: binds `name` to the task's id, the
        site's number until the task binds its own (a value known only at run time)."""
        slot = self.bind(name)
        ir, _ = self.new_task_id()
        self.env[slot] = tys.scalar(TASK_ID)
        return slot, ir_nodes.assign(self.stmt_line(node), slot, ir)

    # -- pl.system.task_dummy / task_invalid -------------------------------------------
    def task_call(self, node, name):
        label = "pl.system.%s" % name
        if node.args:
            raise self.error(node, "%s must not use positional arguments" % label)
        if name == "task_invalid":
            if node.keywords:
                raise self.error(node, "%s takes no arguments" % label)
            ir = const("task_id", NO_TASK)
            return ir, tys.of_pure(ir)
        deps = None
        for kw in node.keywords:
            if kw.arg != "deps":
                raise self.error(node, "%s does not accept keyword argument '%s'; use "
                                 "%s(deps=[task_id])" % (label, kw.arg, label))
            deps = kw.value
        if deps is None:
            raise self.error(node, "%s requires keyword argument 'deps' (use %s(deps=[]) for an "
                             "empty barrier)" % (label, label))
        site, _ = self.new_task_id()
        ir = ir_nodes.call("task_dummy", [site, ir_nodes.list_(self.deps_entries(node, label, deps)),
                                          const("int64", self.stmt_line(node)),
                                          const("bool", self.manual_scopes > 0)], {})
        return ir, tys.scalar(TASK_ID)


def array_ty(extent, dtype):
    return Ty("array", dtype, (extent,))
