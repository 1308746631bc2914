"""Kernel statements -> IR STMT nodes (host/sim/IR.md); the whole entry FUNCTION. Calls of
helpers are spliced by splice.SpliceMixin."""

import ast
import builtins
import contextlib

from pypto.compiler import ir_nodes, tys
from pypto.compiler.aiv_split import AivSplitMixin
from pypto.compiler.dump_marks import DumpMarksMixin
from pypto.compiler.expressions import ExprTranslator
from pypto.compiler.host_launch import HostLaunchMixin
from pypto.compiler.ir_nodes import const, is_const, is_pure, is_sequence
from pypto.compiler.kernel_source import MISSING, stored_names
from pypto.compiler.splice import INCORE_KINDS, ReturnPlan, Scope, SpliceMixin
from pypto.compiler.spmd_submit import SpmdSubmitMixin
from pypto.compiler.task_deps import TaskDepsMixin, arrays_linking_iterations
from pypto.compiler.tys import UNKNOWN, Ty
from pypto.language import constructs
from pypto.language.dtypes import INDEX, TASK_ID
from pypto.language.enums import ScopeMode
from pypto.language.types import Level

_LOOPS = ", ".join("pl.%s(...)" % k for k in list(constructs.LOOPS)[:-1]) \
    + " or pl.%s(...)" % list(constructs.LOOPS)[-1]
_WITHS = "'with pl.at(...)', 'with pl.spmd(...)', 'with pl.scope()' or 'with pl.manual_scope()'"
_SEQUENTIAL = ("range", "unroll", "pipeline")


class _Carry:
    """A loop with init_values=: the carried slots and, once seen, the yield targets."""

    def __init__(self, slots):
        self.slots = slots
        self.targets = None


def _block_tasks(line, name, body, dumps):
    """A pl.spmd body as the InCore task each block runs (PyPTO outlines it as one): an at
    region, one per part between top-level pl.system.syncall barriers (the simulator runs
    each part for every block before the next), the later parts named as the first. A body
    that already holds its tasks (a spliced InCore function, an explicit region) stays as
    it is."""
    if _holds_region(body):
        return body
    parts, current = [], []
    for st in body:
        if ir_nodes.stmt_kind(st) == "barrier":
            parts += [current, st]
            current = []
        else:
            current.append(st)
    parts.append(current)
    out, k = [], 0
    for part in parts:
        if isinstance(part, dict):
            out.append(part)
        elif part:
            out.append(ir_nodes.at(line, name, part, dumps, part=k))
            k += 1
    return out


def _holds_region(stmts):
    return any(ir_nodes.stmt_kind(st) == "at" or any(_holds_region(b) for b in ir_nodes.blocks(st))
               for st in stmts)


def _is_write_into(value, slot):
    if ir_nodes.is_var(value):
        return ir_nodes.is_var(value, slot)
    return ir_nodes.is_var(ir_nodes.written_target(value), slot)


def _slots_given_new_values(stmts, slots):
    """The slots among `slots` that an assignment in the IR statements `stmts` (nested
    blocks included) gives a value other than a write into that slot's own tensor."""
    found = set()
    for st in stmts:
        kind = ir_nodes.stmt_kind(st)
        if kind == "assign" and st["slot"] in slots and not _is_write_into(st["value"], st["slot"]):
            found.add(st["slot"])
        elif kind == "unpack":
            found |= slots & set(st["slots"])
        elif kind == "for" and st["var"] in slots:
            found.add(st["var"])
        for block in ir_nodes.blocks(st):
            found |= _slots_given_new_values(block, slots)
    return found


def _only_task_ids(stmts, slot):
    """The site number of the last task id the statements assign to `slot` when every
    assignment to it is one (a task id carried out of a parallel loop), else None."""
    found = None
    for st in stmts:
        kind = ir_nodes.stmt_kind(st)
        if kind == "assign" and st["slot"] == slot:
            site = _task_id_site(st["value"])
            if site is None:
                return None
            found = site
        elif kind == "unpack" and slot in st["slots"]:
            return None
        for block in ir_nodes.blocks(st):
            inner = _only_task_ids(block, slot)
            if inner is None and _assigns(block, slot):
                return None
            found = found if inner is None else inner
    return found


def _task_id_site(value):
    """The site number a task id's IR names (a site's constant, pl.system.task_dummy), else
    None."""
    if is_const(value, "task_id"):
        return value["v"]
    if ir_nodes.is_call(value) and value["op"] == "task_dummy":
        return value["args"][0]["v"]
    return None


def _assigns(stmts, slot):
    return slot in _slots_given_new_values(stmts, {slot})


def _join_env(a, b):
    return {slot: tys.join(a.get(slot), b.get(slot)) for slot in set(a) | set(b)}


class FunctionTranslator(SpliceMixin, TaskDepsMixin, SpmdSubmitMixin, AivSplitMixin,
                         HostLaunchMixin, DumpMarksMixin, ExprTranslator):
    def __init__(self, kernel, spec, kind="orchestration", program=None, devices=None):
        """devices: a @pl.jit.host program's device ids (kind "host"), one rank each."""
        self.kernel = kernel
        self.host = kind == "host"
        self.devices = devices
        self.spec = spec
        self.entry_file = kernel.source_file
        self.slots = [p.name for p in spec.params]
        self.params = {p.name: p for p in spec.params}
        self.scope = Scope(kernel, program=program, params=self.slots)
        self.env = {}
        for i, p in enumerate(spec.params):
            self.scope.names[p.name] = i
            if p.kind == "tensor":
                self.env[i] = tys.tensor(p.dtype, p.shape)
            elif p.runtime:
                self.env[i] = tys.scalar(p.dtype)
            else:
                self.env[i] = tys.scalar(p.dtype, self.scalar_const(p))
        # State of the regions being translated; only region() changes it.
        self.incore = 1 if kind in INCORE_KINDS else 0  # depth of InCore regions
        self.spmd = []             # (block index IR, block count IR) of enclosing pl.spmd
        self.yields = [("function",)]  # what a pl.yield_ assigns, innermost last
        self.active = [kernel]     # functions being spliced (recursion check)
        self.pending = []          # statements of calls spliced inside an expression
        self.splices = {}          # callee name -> times spliced (slot prefixes)
        self.num_returns = None    # set by the entry's first `return`
        self.task_sites = 0        # task ids handed out (task_deps.new_task_id)
        self.manual_scopes = 0     # depth of pl.manual_scope() / pl.scope(mode=MANUAL)
        self.aiv_regions = []      # enclosing pl.split_aiv regions (aiv_split.AivRegion)
        self.function_kind = kind  # of the function whose body is being translated
        self.dump_tags = []        # pl.dump_tag marks in force (dump_marks.DumpTag)

    @contextlib.contextmanager
    def region(self, *, scope=None, yields=None, incore=False, spmd=None, splicing=None,
               manual=False, aiv=None, kind=None):
        """Translate a nested region: a loop or if body (`yields`: the ("loop", carry) /
        ("plain",) / ("if",) context of its pl.yield_), an InCore region (`incore`), a
        pl.spmd body (`spmd`: its (block index, block count)), a spliced function
        (`scope`: its names, with a yield context of its own; `splicing`: its kernel;
        `kind`: its function kind), a manual-dependency scope (`manual`) or a pl.split_aiv
        body (`aiv`: its AivRegion). All of this state is as before once the region is
        left, also when it failed."""
        saved = (self.scope, self.yields, self.incore, self.spmd, self.active,
                 self.manual_scopes, self.aiv_regions, self.function_kind)
        if scope is not None:
            self.scope = scope
            yields = yields or ("function",)
        if kind is not None:
            self.function_kind = kind
        if yields is not None:
            self.yields = self.yields + [yields]
        self.incore += 1 if incore else 0
        if spmd is not None:
            self.spmd = self.spmd + [spmd]
        if splicing is not None:
            self.active = self.active + [splicing]
        self.manual_scopes += 1 if manual else 0
        if aiv is not None:
            self.aiv_regions = self.aiv_regions + [aiv]
        try:
            yield
        finally:
            (self.scope, self.yields, self.incore, self.spmd, self.active,
             self.manual_scopes, self.aiv_regions, self.function_kind) = saved

    @staticmethod
    def scalar_const(param):
        return const(param.dtype.name, param.value)

    def function(self):
        func = self.kernel.func
        # A specialised scalar that the body rebinds: its slot must hold the value too.
        prologue = [ir_nodes.assign(func.lineno, self.scope.names[p.name], self.scalar_const(p))
                    for p in self.params.values()
                    if p.kind == "scalar" and not p.runtime and p.name in self.kernel.bound_names]
        body = self.joined(func, prologue + self.block(func.body))
        return {"name": self.kernel.name, "line": func.lineno,
                "params": [self._param(p) for p in self.params.values()],
                "slots": self.slots, "body": body}

    @staticmethod
    def _param(p):
        if p.kind == "tensor":
            return {"name": p.name, "kind": "tensor", "direction": p.direction,
                    "shape": [-1 if d is None else d for d in p.shape], "dtype": p.dtype.name}
        param = {"name": p.name, "kind": "scalar", "direction": "In", "dtype": p.dtype.name,
                 "runtime": p.runtime}
        if not p.runtime and isinstance(p.value, (bool, int, float)):
            param["value"] = p.value  # what a replay with another value is warned about
        return param

    def block(self, stmts):
        out = []
        for node in stmts:
            saved, self.pending = self.pending, []
            try:
                result = self.visit(node, "_s_")
            finally:
                spliced, self.pending = self.pending, saved
            self.drop_rebound_tags(node)
            out.extend(spliced)
            out.extend(result)
        return out

    def stmt_line(self, node):
        """The `line` of a statement: the call site's for a callee from another file."""
        return self.scope.line or node.lineno

    def read_slot(self, slot):
        ty = self.env.get(slot, UNKNOWN)
        value = ty.known_value()
        return (value if value is not None else ir_nodes.var(slot)), ty

    # -- assignments --------------------------------------------------------------------
    def _s_Assign(self, node):
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment '%s' is not supported" % self.text(node))
        target, value = node.targets[0], node.value
        if isinstance(value, ast.Call):
            if self.is_yield(value):
                return self.yield_stmt(node, value, target)
            if self.special_of(value) == "spmd_submit":
                return self.spmd_submit(node, target, value)
            callee = self.resolve_callee(value)
            if callee is not None and self._names_target(target):
                names = [target] if isinstance(target, ast.Name) else target.elts
                plan = ReturnPlan("targets")
                self.splice_call(value, callee, plan, target_names=[n.id for n in names])
                return []
        return self.assign(node, target, value)

    def _s_AnnAssign(self, node):
        if node.value is None:  # a bare declaration has no effect
            return []
        return self.assign(node, node.target, node.value)

    def _s_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment to '%s' is not supported; only to a "
                             "plain name" % self.text(node.target))
        # `t += v` reads `t` first: the read is at the target (errors about it point there).
        read = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
        value = ast.BinOp(left=read, op=node.op,
                          right=node.value, lineno=node.lineno, col_offset=node.col_offset,
                          end_lineno=node.end_lineno, end_col_offset=node.end_col_offset)
        ir, ty = self.texpr(value)
        slot = self.bind(node.target.id)
        self.set_ty(slot, ir, ty)
        return [ir_nodes.assign(self.stmt_line(node), slot, ir)]

    @staticmethod
    def _names_target(target):
        return isinstance(target, ast.Name) or (
            isinstance(target, (ast.Tuple, ast.List))
            and all(isinstance(t, ast.Name) for t in target.elts))

    def assign(self, node, target, value_node):
        value, ty = self.texpr(value_node)  # Python evaluates the right side first
        if isinstance(target, ast.Name):
            slot = self.bind(target.id)
            self.set_ty(slot, value, ty)
            return [ir_nodes.assign(self.stmt_line(node), slot, value)]
        if isinstance(target, (ast.Tuple, ast.List)):
            if not all(isinstance(t, ast.Name) for t in target.elts):
                raise self.error(node, "tuple assignment targets must be plain names ('%s')"
                                 % self.text(target))
            return [self.unpack(node, [t.id for t in target.elts], value, ty)]
        if isinstance(target, ast.Subscript):
            return [self.write(node, target, value, ty)]
        raise self.error(node, "assignment to '%s' is not supported" % self.text(target))

    def unpack(self, node, names, value, ty, slots=None):
        n = len(names)
        if is_sequence(value) and len(value["items"]) != n:
            raise self.error(node, "cannot unpack %d values into %d names"
                             % (len(value["items"]), n))
        slots = slots or [self.bind(name) for name in names]
        items = ty.items if ty.items is not None and len(ty.items) == n else None
        for k, slot in enumerate(slots):
            item_ir = value["items"][k] if is_sequence(value) else None
            item_ty = items[k] if items else UNKNOWN
            if item_ir is not None:
                self.set_ty(slot, item_ir, item_ty)
            else:
                self.env[slot] = item_ty.replace(value=None, stable=True)
        return ir_nodes.unpack(self.stmt_line(node), slots, value)

    def write(self, node, target, value, vty):
        base = target.value
        if not isinstance(base, ast.Name) or not self.is_local(base.id):
            raise self.error(node, "the target of a subscript assignment must be a plain "
                             "tensor name, got '%s'" % self.text(base))
        if base.id in self.scope.consts:
            raise self.error(node, "'%s' is a compile-time value and cannot be subscripted"
                             % base.id)
        slot = self.bind(base.id)
        tty = self.env.get(slot, UNKNOWN)
        if tty.kind == "array":
            return self.array_write(node, target, slot, tty, value, vty)
        if tty.kind == "scalar":
            raise self.error(node, "'%s' is a scalar and cannot be subscripted" % base.id)
        if tty.is_tensor and vty.is_tensor and tty.dtype and vty.dtype \
                and tty.dtype is not vty.dtype:
            raise self.error(node, "'%s': the value written is %s but '%s' is %s; convert it "
                             "with pl.cast first" % (self.text(target), vty.dtype, base.id,
                                                     tty.dtype))
        return ir_nodes.write(self.stmt_line(node), slot, self.index_list(target), self.text(target),
                              value)

    # -- loops --------------------------------------------------------------------------
    def _s_For(self, node):
        if node.orelse:
            raise self.error(node, "'for ... else' is not supported in a kernel")
        it = node.iter
        fn = self.static_value(it.func) if isinstance(it, ast.Call) else MISSING
        name = getattr(fn, "_pypto_loop", None)
        if name not in constructs.LOOPS:
            if fn is builtins.range:
                raise self.error(node, "plain Python 'range' is not allowed as a kernel loop; "
                                 "use %s" % _LOOPS)
            raise self.error(node, "a kernel for-loop must iterate over %s, got '%s'"
                             % (_LOOPS, self.text(it)))
        kind, allowed = constructs.LOOPS[name]
        label = "pl.%s()" % name
        if name == "split_aiv":
            return self.split_aiv_loop(node, it, label)
        if any(isinstance(a, ast.Starred) for a in it.args):
            raise self.error(node, "%s: *args are not supported" % label)
        if name == "spmd":
            if len(it.args) != 1:
                raise self.error(node, "%s takes 1 positional argument (core_num), got %d"
                                 % (label, len(it.args)))
        elif not 1 <= len(it.args) <= 3:
            raise self.error(node, "%s takes 1 to 3 arguments (%s), got %d"
                             % (label, ", ".join(constructs.LOOP_PARAMS), len(it.args)))
        keywords = self._region_keywords(node, it, label, allowed)
        if name == "spmd" and "deps" in keywords:
            raise self.error(node, "pl.spmd() does not accept 'deps=' here: the for-form captures "
                             "no task id; use 'with pl.spmd(n, deps=[...]) as tid:'")
        self._check_chunk(node, label, keywords)
        init_node = keywords.get("init_values")
        if "stage" in keywords:
            stage = self.expr(keywords["stage"])
            if not is_const(stage, "int64") or stage["v"] < 1:
                raise self.error(node, "%s: stage must be a positive compile-time int, got '%s'"
                                 % (label, self.text(keywords["stage"])))
        # The loop target: `i`, or `i, (a, b)` with init_values=.
        target = node.target
        carried_names = []
        if init_node is not None:
            if not (isinstance(init_node, (ast.Tuple, ast.List)) and init_node.elts):
                raise self.error(node, "%s: init_values must be a tuple of initial values, got "
                                 "'%s'" % (label, self.text(init_node)))
            shape_ok = isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and isinstance(target.elts[0], ast.Name)
            carried = target.elts[1] if shape_ok else None
            if isinstance(carried, ast.Name):
                carried_names = [carried.id]
            elif isinstance(carried, (ast.Tuple, ast.List)) \
                    and all(isinstance(e, ast.Name) for e in carried.elts):
                carried_names = [e.id for e in carried.elts]
            else:
                raise self.error(node, "%s with init_values=: the loop target must be "
                                 "'i, (a, b, ...)', got '%s'" % (label, self.text(target)))
            if len(carried_names) != len(init_node.elts):
                raise self.error(node, "%s: %d init_values for %d carried names"
                                 % (label, len(init_node.elts), len(carried_names)))
            target = target.elts[0]
        elif not isinstance(target, ast.Name):
            raise self.error(node, "the loop variable of %s must be a plain name, got '%s'"
                             % (label, self.text(target)))
        # The iterator is evaluated first: bounds, then initial values.
        bounds = [self.expr(a) for a in it.args]
        if len(bounds) == 1:
            bounds.insert(0, const("int64", 0))
        if len(bounds) == 2:
            bounds.append(const("int64", 1))
        pre = []
        inits = [self.texpr(e) for e in init_node.elts] if init_node is not None else []
        if name == "spmd":
            bounds[1] = self._block_count(node, bounds[1], pre)
        carry = None
        if inits:
            slots = [self.bind(n) for n in carried_names]
            pre.append(self._assign_many(node, slots, inits))
            carry = _Carry(slots)
        var = self.bind(target.id)
        rebound = stored_names(node.body) | set(carried_names) | {target.id}
        outer = {self.scope.names[n]: n for n in rebound - set(carried_names) - {target.id}
                 if n in self.scope.names and self.scope.names[n] in self.env}
        spmd = (bounds[1], self._spmd_task_name(node, label, keywords)) if name == "spmd" else None
        body = self._loop_body(node.body, kind, var, rebound, carry, spmd=spmd, line=self.stmt_line(node))
        ordered, joins = False, []
        if kind not in _SEQUENTIAL:
            joins = self._drop_rebound(node, label, outer, body) + self._join_new_task_ids(rebound, body)
            ordered = self._ordered(body)
        loop = ir_nodes.for_(self.stmt_line(node), kind, var, bounds[0], bounds[1], bounds[2], body,
                             ordered=ordered, task=self.task_fields() if name == "spmd" else None,
                             joins=joins)
        post = []
        if carry is not None and carry.targets and carry.targets != carry.slots:
            post.append(self._assign_many(node, carry.targets,
                                          [self.read_slot(s) for s in carry.slots]))
        return self.joined(node, [s for s in pre + [loop] + post if s is not None])

    def _check_chunk(self, node, label, keywords):
        """`chunk=C` (and `chunk_policy=`) as PyPTO checked them before #1895 removed them: a
        loop split into chunks of C iterations runs the same iterations, so nothing else
        changes here."""
        if "chunk" in keywords:
            chunk = self.expr(keywords["chunk"])
            if not ir_nodes.is_compile_time_int(chunk):
                raise self.error(node, "%s: chunk must be a compile-time constant positive integer, "
                                 "got '%s'" % (label, self.text(keywords["chunk"])))
            if chunk["v"] <= 0:
                raise self.error(node, "%s: chunk must be a positive integer, got %d"
                                 % (label, chunk["v"]))
        if "chunk_policy" in keywords:
            policy = keywords["chunk_policy"]
            if not (isinstance(policy, ast.Constant) and policy.value in constructs.CHUNK_POLICIES):
                raise self.error(node, "%s: chunk_policy must be one of the string literals %s, got "
                                 "'%s'" % (label, " or ".join('"%s"' % p for p in constructs.CHUNK_POLICIES),
                                          self.text(policy)))

    def _ordered(self, body):
        """Whether a parallel body's iterations are linked through an array from before the
        loop (one reads what another writes, e.g. `deps=[tids[i - 1]]` after `tids[i] =
        tid`): then they must run in order, which a sequential schedule always allows."""
        arrays = [slot for slot, ty in self.env.items() if ty is not None and ty.kind == "array"]
        return bool(arrays_linking_iterations(body, arrays, _slots_given_new_values))

    def _drop_rebound(self, node, label, outer, body, why=None):
        """Names of the enclosing scope (`outer`: slot -> name) that a parallel body
        (pl.parallel, pl.spmd, pl.split_aiv) gives a new value keep their value from before
        the loop: the iterations run independently and carry nothing out. Reading one
        afterwards is a compile error that says how to carry it (`why`: what it says of the
        body, after "at line N, "). A write into the tensor itself (`buf = pl.assemble(buf,
        ...)`, a helper that returns the tensor it wrote) is not a new value."""
        joins = []
        for slot in _slots_given_new_values(body, set(outer)):
            name = outer[slot]
            task_id = _only_task_ids(body, slot)
            if task_id is not None:
                # A task id rebound in the body: PyPTO lets later tasks depend on it, meaning
                # every iteration's task; all of them have finished once the loop has.
                self.env[slot] = tys.scalar(TASK_ID)
                joins.append((slot, task_id))
                continue
            reason = why or (
                "whose iterations run independently and carry no value out of the loop, so here it "
                "still holds its value from before the loop; to carry it, use pl.range(..., "
                "init_values=(%s,)) with pl.yield_, or write the result into a tensor" % name)
            self.env[slot] = self.env[slot].replace(dropped="'%s' was rebound inside the %s body at "
                                                    "line %d, %s" % (name, label, node.lineno, reason))
        return joins

    def _join_new_task_ids(self, rebound, body):
        """Task ids a parallel body binds first: after the loop they stand for every
        iteration's task, as those it rebinds do (_drop_rebound)."""
        joins = []
        for name in sorted(rebound):
            slot = self.scope.names.get(name)
            site = None if slot is None or slot in self.env else _only_task_ids(body, slot)
            if site is not None:
                self.env[slot] = tys.scalar(TASK_ID)
                joins.append((slot, site))
        return joins

    def _region_keywords(self, node, call, label, allowed):
        out = {}
        for kw in call.keywords:
            if kw.arg is None:
                raise self.error(node, "%s: **kwargs are not supported" % label)
            if kw.arg not in allowed:
                raise self.error(node, "%s got an unexpected keyword argument '%s'"
                                 % (label, kw.arg))
            out[kw.arg] = kw.value
        return out

    def _block_count(self, node, num, pre):
        """The block count of a pl.spmd, on a slot unless it is a constant (so that
        pl.get_block_num() reads the value the loop was started with)."""
        if is_pure(num):
            return num
        slot = self.new_slot("block_num")
        self.env[slot] = tys.scalar(INDEX)
        pre.append(ir_nodes.assign(self.stmt_line(node), slot, num))
        return ir_nodes.var(slot)

    def _loop_body(self, stmts, kind, var, rebound, carry, spmd=None, line=None):
        """`spmd`: (block count, task name) of a pl.spmd loop, whose body becomes the task
        each block runs."""
        before = dict(self.env)
        dumps = self.task_dumps() if spmd is not None else ()
        if kind in _SEQUENTIAL:
            # Names the body rebinds may hold a value from the previous iteration.
            for name in rebound:
                slot = self.scope.names.get(name)
                if slot is not None and slot in self.env:
                    self.env[slot] = self.env[slot].replace(stable=False)
        self.env[var] = tys.scalar(INDEX)
        blocks = (ir_nodes.var(var), spmd[0]) if spmd is not None else None
        with self.region(yields=("loop", carry) if carry is not None else ("plain",),
                         incore=blocks is not None, spmd=blocks):
            body = self.block(stmts)
        if spmd is not None:
            body = _block_tasks(line, spmd[1], body, dumps)
        if kind in _SEQUENTIAL:
            self.env = _join_env(before, self.env)
        else:
            # Independent iterations run on copies of the variables: nothing leaks out.
            self.env = before
        return body

    def _assign_many(self, node, slots, pairs):
        """slots[k] = pairs[k] (IR, Ty), as one statement (None: nothing to do)."""
        if len(slots) == 1:
            ir, ty = pairs[0]
            if ir_nodes.is_var(ir, slots[0]):
                return None  # x = x
            self.set_ty(slots[0], ir, ty)
            return ir_nodes.assign(self.stmt_line(node), slots[0], ir)
        value = ir_nodes.tuple_(p[0] for p in pairs)
        for slot, (ir, ty) in zip(slots, pairs):
            self.set_ty(slot, ir, ty)
        return ir_nodes.unpack(self.stmt_line(node), list(slots), value)

    # -- pl.yield_ ----------------------------------------------------------------------
    def special_of(self, call):
        """The frontend special (constructs.SPECIALS) a call is of, or None."""
        if not isinstance(call.func, (ast.Name, ast.Attribute)) \
                or not self.is_static_chain(call.func):
            return None
        return getattr(self.static_value(call.func), "_pypto_special", None)

    def is_yield(self, call):
        return self.special_of(call) == "yield_"

    def yield_stmt(self, node, call, target):
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args) \
                or not call.args:
            raise self.error(node, "pl.yield_() takes the yielded values as positional arguments")
        names = None
        if target is not None:
            if not self._names_target(target):
                raise self.error(node, "pl.yield_() results must be assigned to plain names, "
                                 "got '%s'" % self.text(target))
            names = [target.id] if isinstance(target, ast.Name) else [e.id for e in target.elts]
        values = [self.texpr(a) for a in call.args]
        ctx = self.yields[-1]
        if ctx[0] == "loop":
            carry = ctx[1]
            if len(values) != len(carry.slots):
                raise self.error(node, "pl.yield_() gives %d value(s) but the loop carries %d"
                                 % (len(values), len(carry.slots)))
            out = [self._assign_many(node, carry.slots, values)]
            if names is not None:
                if len(names) != len(carry.slots):
                    raise self.error(node, "pl.yield_() of %d value(s) assigned to %d name(s)"
                                     % (len(values), len(names)))
                slots = [self.bind(n) for n in names]
                if carry.targets is not None and carry.targets != slots:
                    raise self.error(node, "every pl.yield_() of a loop must assign the same "
                                     "names")
                carry.targets = slots
                if slots != carry.slots:
                    out.append(self._assign_many(node, slots, [self.read_slot(s)
                                                               for s in carry.slots]))
            return [s for s in out if s is not None]
        if ctx[0] == "if":
            if names is None:
                raise self.error(node, "pl.yield_() in an if/else branch must assign its values "
                                 "('x = pl.yield_(...)')")
            if len(names) == 1 and len(values) > 1:
                ir = ir_nodes.tuple_(v[0] for v in values)
                values = [(ir, Ty("tuple", items=tuple(v[1] for v in values)))]
            if len(names) != len(values):
                raise self.error(node, "pl.yield_() of %d value(s) assigned to %d name(s)"
                                 % (len(values), len(names)))
            stmt = self._assign_many(node, [self.bind(n) for n in names], values)
            return [] if stmt is None else [stmt]
        raise self.error(node, "pl.yield_() must be inside a pl.range(..., init_values=...) loop "
                         "or an if/else branch")

    # -- regions ------------------------------------------------------------------------
    def _s_With(self, node):
        item = node.items[0]
        call = item.context_expr
        fn = self.static_value(call.func) if isinstance(call, ast.Call) else MISSING
        region = getattr(fn, "_pypto_region", None)
        if len(node.items) != 1 or region not in constructs.REGIONS:
            raise self.error(node, "a kernel 'with' statement must be %s" % _WITHS)
        label = "pl.%s()" % region
        allowed = constructs.REGIONS[region]
        keywords = self._region_keywords(node, call, label, allowed)
        pre = []
        tid = item.optional_vars
        deps, no_dep = self._task_keywords(node, label, region, keywords, tid) if region in ("at", "spmd") \
            else ([], [])
        tid_slot = None
        if tid is not None:  # the task's id: deps= of later tasks and TASK_ID arrays take it
            if region not in ("at", "spmd"):
                raise self.error(node, "%s gives no task id; only 'with pl.at(...) as tid' and "
                                 "'with pl.spmd(...) as tid' bind one" % label)
            if not isinstance(tid, ast.Name):
                raise self.error(node, "%s: the 'as' target must be a plain name, got '%s'"
                                 % (label, self.text(tid)))
            tid_slot, assign = self.bind_task_id(node, tid.id)
            pre.append(assign)
        task = self.task_fields(tid_slot, deps, no_dep if region == "at" else ())
        if region == "at":
            return pre + [self._at(node, call, label, keywords, task)]
        if region == "spmd":
            if len(call.args) != 1 or any(isinstance(a, ast.Starred) for a in call.args):
                raise self.error(node, "%s takes 1 positional argument (core_num), got %d"
                                 % (label, len(call.args)))
            num = self._block_count(node, self.expr(call.args[0]), pre)
            var = self.new_slot("block_idx")
            body = self._loop_body(node.body, "spmd", var, (), None, line=self.stmt_line(node),
                                   spmd=(num, self._spmd_task_name(node, label, keywords)))
            return pre + [ir_nodes.for_(self.stmt_line(node), "spmd", var, const("int64", 0), num,
                                        const("int64", 1), body, ordered=self._ordered(body), task=task)]
        # pl.scope() / pl.manual_scope() / pl.cluster(): scheduling hints only.
        if call.args:
            raise self.error(node, "%s takes no positional arguments" % label)
        manual = self._scope_is_manual(node, region, label, keywords)
        with self.region(manual=manual):
            return pre + self.block(node.body)

    def _task_keywords(self, node, label, region, keywords, tid):
        """deps= / no_dep_args= of a task region, checked as PyPTO does; returns the IR of
        the deps= entries and the slots of the no_dep_args= tensors."""
        no_dep = self.no_dep_args(label, keywords["no_dep_args"]) if "no_dep_args" in keywords else []
        if "deps" not in keywords:
            return [], no_dep
        if region == "spmd" and tid is None:
            raise self.error(node, "pl.spmd() does not accept 'deps=' here: without 'as tid' it "
                             "captures no task id; use 'with pl.spmd(n, deps=[...]) as tid:'")
        return self.deps_entries(node, label, keywords["deps"]), no_dep

    def _scope_is_manual(self, node, region, label, keywords):
        """pl.manual_scope() / pl.scope(mode=pl.ScopeMode.MANUAL); PyPTO's runtime forbids a
        scope nested in a manual one."""
        manual = region == "manual_scope"
        if region == "scope" and "mode" in keywords:
            mode = self._static(keywords["mode"])
            if not isinstance(mode, ScopeMode):
                raise self.error(node, "%s: mode must be a pl.ScopeMode member (AUTO or MANUAL), "
                                 "got '%s'" % (label, self.text(keywords["mode"])))
            manual = mode is ScopeMode.MANUAL
        if region in ("scope", "manual_scope") and self.manual_scopes:
            raise self.error(node, "a manual scope may not be nested inside another manual scope"
                             if manual else "an AUTO scope may not be nested inside a manual scope")
        return manual

    def _name_hint(self, node, label, keywords):
        """A region's name_hint=: a compile-time string, or None."""
        if "name_hint" not in keywords:
            return None
        value = self._static(keywords["name_hint"])
        if not (value is None or isinstance(value, str)):
            raise self.error(node, "%s: name_hint must be a compile-time string, got '%s'"
                             % (label, self.text(keywords["name_hint"])))
        return value

    def _spmd_task_name(self, node, label, keywords):
        """The InCore task a pl.spmd's blocks run is named as PyPTO's parser names it: the
        name_hint, less a "_spmd" ending (which names the Spmd wrapper around it)."""
        name = self._name_hint(node, label, keywords)
        return name[:-len("_spmd")] if name and name.endswith("_spmd") else name

    def _at(self, node, call, label, keywords, task):
        if call.args:
            raise self.error(node, "%s takes keyword arguments only (%s)"
                             % (label, ", ".join("%s=" % k for k in constructs.REGIONS["at"])))
        name = self._name_hint(node, label, keywords)
        if "level" in keywords and not isinstance(self._static(keywords["level"]), Level):
            raise self.error(node, "%s: level must be a pl.Level member, got '%s'"
                             % (label, self.text(keywords["level"])))
        dumps = self.task_dumps(self.dumps_keyword(label, keywords["dumps"])
                                if "dumps" in keywords else ())
        with self.region(incore=True):
            body = self.block(node.body)
        return ir_nodes.at(self.stmt_line(node), name, body, dumps, task=task)

    def _static(self, node):
        """A compile-time value (literal or module-level name), MISSING otherwise."""
        if isinstance(node, ast.Constant):
            return node.value
        return self.static_value(node)

    # -- if / return / expression statements --------------------------------------------
    def _s_If(self, node):
        cond, _ = self.texpr(node.test)
        truth = tys.truth(cond)
        with self.region(yields=("if",)):
            if truth is not None:  # a compile-time condition: only the branch taken
                return self.block(node.body if truth else node.orelse)
            before = dict(self.env)
            then = self.block(node.body)
            then_env, self.env = self.env, before
            orelse = self.block(node.orelse)
            self.env = _join_env(then_env, self.env)
        return [ir_nodes.if_(self.stmt_line(node), cond, then, orelse)]

    def _s_Return(self, node):
        if node.value is None:
            pairs = []
        elif isinstance(node.value, ast.Tuple):
            pairs = [self.texpr(e) for e in node.value.elts]
        else:
            pairs = [self.texpr(node.value)]
        plan = self.scope.ret
        if plan is not None:
            return self._callee_return(node, plan, pairs)
        if self.num_returns is None:
            self.num_returns = len(pairs)
        elif self.num_returns != len(pairs):
            raise self.error(node, "this return gives %d value(s) but an earlier one gives %d"
                             % (len(pairs), self.num_returns))
        ret = ir_nodes.return_(self.stmt_line(node), [p[0] for p in pairs])
        return [ir_nodes.join(self.stmt_line(node)), ret] if self.host else [ret]

    def _s_Expr(self, node):
        value = node.value
        if isinstance(value, ast.Constant):  # docstrings and stray literals
            return []
        if isinstance(value, ast.Call):
            if self.is_yield(value):
                return self.yield_stmt(node, value, None)
            chip = self.chip_program(value) if self.host else None
            if chip is not None:
                return self.launch_call(node, value, chip)
            callee = self.resolve_callee(value)
            if callee is not None:
                self.splice_call(value, callee, ReturnPlan("discard"))
                return []
            if self.special_of(value) == "dump_tag":
                return self.dump_tag_stmt(node, value)
        ir, _ = self.texpr(value)
        if isinstance(value, ast.Call) and \
                getattr(self.static_value(value.func), "_pypto_system", None) == "syncall":
            return [ir_nodes.barrier(self.stmt_line(node))]
        if is_const(ir):  # no-ops: pl.system.*, bind_dynamic, static_assert, ...
            return []
        return [ir_nodes.expr_stmt(self.stmt_line(node), ir)]

    def _s_Pass(self, node):
        return []
