"""Selective argument dump: `pl.dump_tag(t)` statements and the `dumps=[...]` keyword of
pl.at / pl.spmd_submit, which say which tensors a task dumps at `enable_dump_args=1`.

PyPTO's meaning (docs/en/dev/03-runtime-dfx.md, "Selective tensor dump", and
python/pypto/language/parser/ast_parser.py of the PyPTO repository): a tag marks one value
of a name, tracked by identity, not by name, for every later task that consumes it; the
name rebound (`q = self.foo(q)`, a loop that carries it) is a new, untagged value. A tag
written in an inline helper covers that helper's tasks only. Tags are consumed at compile
time: each task site (an `at` node) lists the slots whose values it dumps, and the
simulator dumps the windows of those values' storage that the task reads and writes."""

import ast

from pypto.compiler import tys
from pypto.compiler.kernel_source import stored_names
from pypto.compiler.splice import INCORE_KINDS


class DumpTag:
    """One pl.dump_tag: the slot, the binding it tagged (the Ty object the slot held) and
    the scope it was written in."""
    __slots__ = ("slot", "ty", "scope")

    def __init__(self, slot, ty, scope):
        self.slot, self.ty, self.scope = slot, ty, scope


class DumpMarksMixin:
    def dump_tag_stmt(self, node, call):
        """`pl.dump_tag(t)` as a statement: tags t's current value; emits no IR."""
        if self.function_kind in INCORE_KINDS:
            raise self.error(node, "pl.dump_tag() is only valid inside an Orchestration or Inline "
                             "function; move it to the orchestration whose tasks consume the "
                             "tensor")
        if len(call.args) != 1 or call.keywords \
                or any(isinstance(a, ast.Starred) for a in call.args):
            raise self.error(node, "pl.dump_tag() takes exactly one positional argument (no "
                             "keywords); use pl.dump_tag(tensor_var)")
        arg = call.args[0]
        if not isinstance(arg, ast.Name):
            raise self.error(arg, "pl.dump_tag() argument must be a bare variable name, got '%s'"
                             % self.text(arg))
        slot, ty = self._dump_target(arg, "pl.dump_tag() argument '%s'" % arg.id)
        if not any(t.slot == slot and t.ty is ty for t in self.dump_tags):
            self.dump_tags.append(DumpTag(slot, ty, self.scope))
        return []

    def dumps_keyword(self, label, value):
        """The slots of a `dumps=[t1, t2]` list (bare tensor names, each once)."""
        if not isinstance(value, (ast.List, ast.Tuple)):
            raise self.error(value, "%s dumps= must be a list literal of tensor names, got '%s'"
                             % (label, self.text(value)))
        slots = []
        for elt in value.elts:
            if not isinstance(elt, ast.Name):
                raise self.error(elt, "%s dumps= entries must be bare tensor names, got '%s'"
                                 % (label, self.text(elt)))
            slot, _ = self._dump_target(elt, "%s dumps= entry '%s'" % (label, elt.id))
            if slot in slots:
                raise self.error(elt, "%s dumps= lists '%s' more than once" % (label, elt.id))
            slots.append(slot)
        return slots

    def task_dumps(self, explicit=()):
        """The slots a task started here dumps: its own dumps= list, then every tag whose
        value the slot still holds (the tags in force are this scope's and those of the
        scopes it was spliced from: drop_scope_tags ends a helper's with it)."""
        out = list(explicit)
        for t in self.dump_tags:
            if t.slot not in out and self.env.get(t.slot) is t.ty:
                out.append(t.slot)
        return out

    def drop_rebound_tags(self, node):
        """After a statement: the names it assigned (also in nested bodies: a loop's carried
        names, an if's merged ones) hold new values, which no tag covers. A store into a
        tensor (`y[0:4] = t`) keeps y's value."""
        if self.dump_tags:
            slots = {self.scope.names.get(name) for name in stored_names([node])}
            self.dump_tags = [t for t in self.dump_tags if t.slot not in slots]

    def drop_scope_tags(self, scope):
        """Tags written in a spliced helper end with it (they rode on its tasks only)."""
        self.dump_tags = [t for t in self.dump_tags if t.scope is not scope]

    def _dump_target(self, name_node, what):
        slot = self.scope.names.get(name_node.id)
        ty = self.env.get(slot) if slot is not None else None
        if ty is None:
            raise self.error(name_node, "%s is not defined at this point (a parameter or a name "
                             "assigned earlier)" % what)
        if not ty.is_tensor:
            raise self.error(name_node, "%s is not a tensor (got %s); only tensors can be "
                             "dumped" % (what, tys.describe(ty)))
        return slot, ty
