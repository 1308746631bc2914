"""`out, tid = pl.spmd_submit(self.kernel, *args, core_num=N, deps=[...])`: one SPMD task
that runs an InCore kernel on N blocks and names that whole launch by a task id.

PyPTO's meaning (python/pypto/language/scope.py `spmd_submit` and the parser's
_parse_submit_assignment of the PyPTO repository): the sibling of `with pl.spmd(N,
deps=[...]) as tid: out = self.kernel(*args)` as a single call. Element 0 of the result is
the kernel's result (a name, or a tuple of names for several), element 1 the producer task
id. In a @pl.jit function `self.kernel`
names the module-level @pl.jit.incore function `kernel`, which the JIT makes a method of the
program it builds.

Here it is the `spmd` loop of that with-form, with the kernel spliced into its body. Each
block's copy of the kernel's locals ends with the block, so a result can only be a tensor the
caller passed in (the kernel writes it in place); after the loop the result names it."""

import ast

from pypto.compiler import ir_nodes, tys
from pypto.compiler.ir_nodes import is_const
from pypto.compiler.splice import INCORE_KINDS, ReturnPlan
from pypto.language.dtypes import INDEX

_LABEL = "pl.spmd_submit"
_USAGE = "`out, tid = pl.spmd_submit(self.kernel, *kernel_args, core_num=N, deps=[...])`"
_KEYWORDS = ("core_num", "sync_start", "deps", "allow_early_resolve", "dumps")


def _assignments(stmts, slot, found):
    """Values the IR statements (nested blocks included) assign to `slot`."""
    for st in stmts:
        kind = ir_nodes.stmt_kind(st)
        if kind == "assign" and st["slot"] == slot:
            found.append(st["value"])
        elif kind == "unpack" and slot in st["slots"]:  # an item of a literal tuple is followed
            items = st["value"]["items"] if ir_nodes.is_sequence(st["value"]) else None
            found.append(items[st["slots"].index(slot)] if items else None)
        for block in ir_nodes.blocks(st):
            _assignments(block, slot, found)
    return found


def _tensor_origin(stmts, slot, outer, seen=()):
    """The slot among `outer` whose tensor `slot` holds in every assignment of `stmts` (a
    copy of it, or a write into it), or None."""
    if slot in outer:
        return slot
    origins = set()
    for value in _assignments(stmts, slot, []):
        value = ir_nodes.written_target(value) or value
        if not ir_nodes.is_var(value):
            return None
        if value["slot"] in seen + (slot,):
            continue  # a write into itself (`y = pl.assemble(y, ...)`): still the same tensor
        origins.add(_tensor_origin(stmts, value["slot"], outer, seen + (slot,)))
    return origins.pop() if len(origins) == 1 else None


class SpmdSubmitMixin:
    """The pl.spmd_submit half of statements.FunctionTranslator."""

    def spmd_submit(self, node, target, call):
        out_names, tid_name = self._submit_targets(node, target)
        if self.incore:
            raise self.error(node, "%s(...) submits a task from orchestration code; it cannot be "
                             "inside an InCore region" % _LABEL)
        callee, func = self._submit_kernel(node, call)
        keywords = self._submit_keywords(node, call)
        # tensors each block's task dumps (dump_marks.py)
        dumps = self.dumps_keyword("%s()" % _LABEL, keywords["dumps"]) if "dumps" in keywords else ()
        pre = []
        deps = self.deps_entries(node, "%s()" % _LABEL, keywords["deps"]) if "deps" in keywords else []
        num = self._core_num(node, keywords["core_num"])
        num = self._block_count(node, num, pre)
        slot, assign = self.bind_task_id(node, tid_name)
        pre.append(assign)
        # The kernel call each block runs, its results on fresh slots inside the block.
        kernel_call = ast.copy_location(ast.Call(func=func, args=call.args[1:], keywords=[]), call)
        var = self.new_slot("block_idx")
        outer = {s for s, ty in self.env.items() if ty is not None and ty.is_tensor}
        before = dict(self.env)
        self.env[var] = tys.scalar(INDEX)
        plan = ReturnPlan("fresh")
        saved, self.pending = self.pending, []
        try:
            with self.region(yields=("plain",), incore=True, spmd=(ir_nodes.var(var), num)):
                self.splice_call(kernel_call, callee, plan, dumps=dumps)
            body = self.pending
        finally:
            self.pending = saved
        self.env = before
        loop = ir_nodes.for_(self.stmt_line(node), "spmd", var, ir_nodes.const("int64", 0), num,
                             ir_nodes.const("int64", 1), body, ordered=self._ordered(body),
                             task=self.task_fields(slot, deps))
        results = [self._submit_result(node, callee, body, s, outer) for s in plan.slots]
        return pre + [loop] + self._bind_results(node, callee, out_names, results)

    def _submit_targets(self, node, target):
        """(result names, task-id name) of `out, tid = ...` / `(a, b), tid = ...`."""
        if isinstance(target, ast.Name):
            # PyPTO's printer form, a tuple in one name: a tuple is no run-time value here.
            raise self.error(node, "%s(...): bind the result and the task id as two names, not "
                             "one tuple '%s'; use %s" % (_LABEL, target.id, _USAGE))
        if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != 2:
            raise self.error(node, "%s(...) must be unpacked as exactly 2 targets (result, "
                             "task_id), got '%s'; use %s" % (_LABEL, self.text(target), _USAGE))
        out, tid = target.elts
        if not isinstance(tid, ast.Name):
            raise self.error(node, "%s(...) task_id target must be a plain variable name, got '%s'"
                             % (_LABEL, self.text(tid)))
        names = [out] if isinstance(out, ast.Name) else (
            list(out.elts) if isinstance(out, (ast.Tuple, ast.List)) else None)
        if names is None or not all(isinstance(n, ast.Name) for n in names):
            raise self.error(node, "%s(...) result target must be a variable name or a tuple of "
                             "names, got '%s'" % (_LABEL, self.text(out)))
        return [n.id for n in names], tid.id

    def _submit_kernel(self, node, call):
        """(Callee, func node to splice) of the first argument, `self.<kernel>`."""
        if not call.args:
            raise self.error(node, "%s(...) requires the kernel as its first argument; use %s"
                             % (_LABEL, _USAGE))
        if any(isinstance(a, ast.Starred) for a in call.args):
            raise self.error(node, "%s(...): *args are not supported" % _LABEL)
        ref = call.args[0]
        if not (isinstance(ref, ast.Attribute) and isinstance(ref.value, ast.Name)
                and ref.value.id == (self.scope.self_name or "self")):
            hint = (" (pass the kernel itself, not a call: %s(self.kernel, x, y))" % _LABEL
                    if isinstance(ref, ast.Call) else "")
            raise self.error(node, "%s(...) first argument must be a `self.<kernel>` method "
                             "reference, got '%s'%s" % (_LABEL, self.text(ref), hint))
        if self.scope.self_name is not None:  # a @pl.program method
            callee, func = self.program_callee(node, ref.attr), ref
        else:  # @pl.jit: the module-level function of that name
            describe = getattr(self.scope.kernel.lookup(ref.attr), "_pypto_callee", None)
            callee = describe() if describe is not None else None
            if callee is None:
                raise self.error(node, "%s(...): 'self.%s' must name a @pl.jit.incore function of "
                                 "this module" % (_LABEL, ref.attr))
            func = ast.copy_location(ast.Name(id=ref.attr, ctx=ast.Load()), ref)
        if callee.kind not in INCORE_KINDS:
            raise self.error(node, "%s(...) launches an InCore kernel (@pl.jit.incore, or a "
                             "@pl.function of type InCore / AIC / AIV / Spmd / Group); '%s' is %s"
                             % (_LABEL, ref.attr, "a @pl.jit.inline function"
                                if callee.kind == "inline" else "a %s function" % callee.kind))
        return callee, func

    def _submit_keywords(self, node, call):
        keywords = self._region_keywords(node, call, "%s()" % _LABEL, _KEYWORDS)
        if "core_num" not in keywords:
            raise self.error(node, "%s(self.%s, ...) requires the core_num keyword argument (a "
                             "positive integer, e.g. core_num=8)" % (_LABEL, call.args[0].attr))
        for flag in ("sync_start", "allow_early_resolve"):
            value = keywords.get(flag)
            if value is not None and not (isinstance(value, ast.Constant)
                                          and isinstance(value.value, bool)):
                raise self.error(node, "%s(): %s must be a boolean literal (True/False), got '%s'"
                                 % (_LABEL, flag, self.text(value)))
        return keywords

    def _core_num(self, node, value):
        ir, ty = self.texpr(value)
        if not (ty.kind == "scalar" and (ty.dtype is None or ty.dtype.name.startswith(("int", "uint"))
                                         or ty.dtype is INDEX)) or is_const(ir, "bool"):
            raise self.error(node, "%s(): core_num must be an integer expression, got '%s' (%s)"
                             % (_LABEL, self.text(value), tys.describe(ty)))
        if ir_nodes.is_compile_time_int(ir) and ir["v"] <= 0:
            raise self.error(node, "%s(): core_num must be a positive integer, got %d"
                             % (_LABEL, ir["v"]))
        return ir

    def _submit_result(self, node, callee, body, slot, outer):
        origin = _tensor_origin(body, slot, outer)
        if origin is None:
            raise self.error(node, "%s(...): a result of '%s' must be a tensor passed to it (a "
                             "pl.Out / pl.InOut parameter it writes); a value it creates is each "
                             "block's own and ends with the block" % (_LABEL, callee.name))
        return self.read_slot(origin)

    def _bind_results(self, node, callee, out_names, results):
        line = self.stmt_line(node)
        if len(out_names) != len(results):
            raise self.error(node, "%s(...) unpacks %d result value(s) but kernel '%s' returns %d"
                             % (_LABEL, len(out_names), callee.name, len(results)))
        out = []
        for name, (ir, ty) in zip(out_names, results):
            slot = self.bind(name)
            if ir_nodes.is_var(ir, slot):
                continue  # `out, tid = pl.spmd_submit(self.k, ..., out, ...)`: already out
            self.set_ty(slot, ir, ty)
            out.append(ir_nodes.assign(line, slot, ir))
        return out
