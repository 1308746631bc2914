"""Splicing: calls of `@pl.jit.inline` / `@pl.jit.incore` functions and of `@pl.program`
methods are translated in place. The callee's locals get fresh slots (`callee.name`), its
parameters alias the caller's values (a variable: its slot, so writes land in the caller's
tensor; a compile-time value: folded; anything else or a rebound parameter: a copy), and its
`return` assigns the call's target. There is no jump in the IR, so a spliced function may
only return at its end."""

import ast

from pypto.compiler import ir_nodes
from pypto.compiler.ir_nodes import const, is_pure
from pypto.compiler.tys import Ty

# Kinds of spliced functions whose body is an InCore region.
INCORE_KINDS = ("incore", "InCore", "AIC", "AIV", "Spmd", "Group")


class Callee:
    """A function whose body is spliced at a call site. kind: "inline", "incore" or a
    pl.FunctionType name of a @pl.program method."""

    __slots__ = ("kernel", "kind", "name", "program")

    def __init__(self, kernel, kind, name, program=None):
        self.kernel, self.kind, self.name, self.program = kernel, kind, name, program


class Scope:
    """Names of one function body being translated (the entry or a spliced callee)."""

    def __init__(self, kernel, prefix="", line=None, program=None, params=(), ret=None):
        self.kernel = kernel
        self.prefix = prefix      # slot display prefix of the callee's locals ("proj.")
        self.line = line          # call-site line, for a callee from another source file
        self.program = program    # the @pl.program of `self.method(...)` calls
        self.self_name = kernel.self_name
        self.params = set(params)
        self.names = {}           # name -> slot
        self.consts = {}          # parameter name -> (IR, Ty) of a compile-time argument
        self.ret = ret            # ReturnPlan of a spliced callee, None for the entry


class ReturnPlan:
    """Where a spliced callee's `return` values go. mode: "targets" (the slots of
    `a, b = f(...)`), "fresh" (slots of a call inside an expression) or "discard"."""

    def __init__(self, mode, slots=()):
        self.mode, self.slots = mode, list(slots)


def _check_tail_returns(kernel, stmts, tail):
    """A spliced function may only return at its end (or at the end of both branches of a
    final if/else): there is no jump in the IR."""
    for i, s in enumerate(stmts):
        last = tail and i == len(stmts) - 1
        if isinstance(s, ast.Return) and not last:
            raise kernel.error(s, "'%s' is spliced into its caller, so a return must be its last "
                               "statement (or end both branches of a final if/else)" % kernel.name)
        if isinstance(s, ast.If):
            _check_tail_returns(kernel, s.body, last)
            _check_tail_returns(kernel, s.orelse, last)
        elif isinstance(s, ast.With):
            _check_tail_returns(kernel, s.body, last)
        elif isinstance(s, (ast.For, ast.While)):
            _check_tail_returns(kernel, s.body, False)


def _always_returns(stmts):
    if not stmts:
        return False
    s = stmts[-1]
    if isinstance(s, ast.Return):
        return True
    if isinstance(s, ast.If):
        return _always_returns(s.body) and _always_returns(s.orelse)
    if isinstance(s, ast.With):
        return _always_returns(s.body)
    return False


def _return_counts(stmts):
    out = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Return):
                if n.value is None or (isinstance(n.value, ast.Constant) and n.value.value is None):
                    out.append((n, 0))
                elif isinstance(n.value, ast.Tuple):
                    out.append((n, len(n.value.elts)))
                else:
                    out.append((n, 1))
    return out


class SpliceMixin:
    """The splicing half of statements.FunctionTranslator."""

    def program_callee(self, node, attr):
        program = self.scope.program
        callee = program.callee(attr) if program is not None else None
        if callee is None:
            raise self.error(node, "'%s.%s' is not a @pl.function of this @pl.program"
                             % (self.scope.self_name, attr))
        return callee

    def resolve_callee(self, call):
        """The Callee of a call that is spliced, else None (ops, specials, ...)."""
        func = call.func
        sc = self.scope
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and sc.self_name is not None and func.value.id == sc.self_name:
            return self.program_callee(call, func.attr)
        if not self.is_static_chain(func):
            return None
        describe = getattr(self.static_value(func), "_pypto_callee", None)
        if describe is None:
            return None
        callee = describe()
        if callee is None:
            raise self.entry_kernel_error(call, self.text(func))
        return callee

    def entry_kernel_error(self, node, name):
        """The error for a call of a @pl.jit entry kernel where it cannot run."""
        if getattr(self, "host", False):
            return self.error(node, "%s(..., device=r) launches a chip program, which has no value in the "
                              "host program: write it as a statement (its results land in the tensors "
                              "it is given)" % name)
        return self.error(node, "'%s' is a @pl.jit entry kernel and cannot be called from a kernel; "
                          "decorate it with @pl.jit.inline or @pl.jit.incore" % name)

    def _bind_call(self, node, callee, label):
        """AST argument per callee parameter (None: the default applies)."""
        kernel = callee.kernel
        params = kernel.arg_names
        fargs = kernel.func.args
        if fargs.posonlyargs or fargs.vararg or fargs.kwonlyargs or fargs.kwarg:
            raise kernel.error(kernel.func, "'%s': only plain parameters are supported in a "
                               "function spliced into a kernel (no /, *args, keyword-only "
                               "parameters or **kwargs)" % callee.name)
        if any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            raise self.error(node, "%s: *args / **kwargs are not supported in kernel calls" % label)
        if len(node.args) > len(params):
            raise self.error(node, "%s takes %d argument%s (%s) but %d were given"
                             % (label, len(params), "" if len(params) == 1 else "s",
                                ", ".join(params), len(node.args)))
        given = dict(zip(params, node.args))
        for kw in node.keywords:
            if kw.arg not in params:
                raise self.error(node, "%s got an unexpected keyword argument '%s'"
                                 % (label, kw.arg))
            if kw.arg in given:
                raise self.error(node, "%s got multiple values for argument '%s'"
                                 % (label, kw.arg))
            given[kw.arg] = kw.value
        defaults = kernel.fn.__defaults__ or ()
        first_default = len(params) - len(defaults)
        missing = [p for i, p in enumerate(params) if p not in given and i < first_default]
        if missing:
            raise self.error(node, "%s missing %d required argument%s: %s"
                             % (label, len(missing), "s" if len(missing) > 1 else "",
                                ", ".join("'%s'" % m for m in missing)))
        return given, {p: defaults[i - first_default] for i, p in enumerate(params)
                       if p not in given}

    def splice_call(self, node, callee, plan=None, target_names=None, dumps=()):
        """Translate `callee(...)` in place; returns the (IR, Ty) of the call's value.
        `dumps`: the slots an InCore callee's task dumps besides the tagged ones."""
        kernel = callee.kernel
        label = "%s()" % self.text(node.func)
        if kernel in self.active:
            raise self.error(node, "'%s' calls itself (directly or through other functions); "
                             "recursion cannot be spliced" % callee.name)
        given, defaults = self._bind_call(node, callee, label)
        # Arguments are evaluated in the caller, in source order.
        values = {}
        order = {id(n): p for p, n in given.items()}
        for arg in list(node.args) + [kw.value for kw in node.keywords]:
            values[order[id(arg)]] = self.texpr(arg)
        _check_tail_returns(kernel, kernel.func.body, True)
        counts = _return_counts(kernel.func.body)
        count = max((c for _, c in counts), default=0)
        for ret, c in counts:
            if c != count:
                raise kernel.error(ret, "this return gives %d value(s) but another return of "
                                   "'%s' gives %d" % (c, callee.name, count))
        if count and not _always_returns(kernel.func.body):
            raise kernel.error(kernel.func, "'%s' returns a value on some paths only; every path "
                               "must end in a return" % callee.name)
        caller_line = self.scope.line or node.lineno
        plan = plan or ReturnPlan("fresh")
        n = self.splices[callee.name] = self.splices.get(callee.name, 0) + 1
        prefix = "%s." % callee.name if n == 1 else "%s_%d." % (callee.name, n)
        if plan.mode == "targets":
            if count == 0:
                raise self.error(node, "'%s' returns no value, but its result is assigned"
                                 % callee.name)
            if len(target_names) > 1 and count not in (1, len(target_names)):
                raise self.error(node, "'%s' returns %d values but %d names are assigned"
                                 % (callee.name, count, len(target_names)))
            plan.slots = [self.bind(t) for t in target_names]
        elif plan.mode == "fresh":
            if count == 0:
                raise self.error(node, "'%s' returns no value, but its result is used"
                                 % callee.name)
            plan.slots = [self.new_slot(prefix + ("ret" if count == 1 else "ret%d" % k))
                          for k in range(count)]
        line = None if kernel.source_file == self.entry_file else caller_line
        scope = Scope(kernel, prefix, line, callee.program or self.scope.program,
                      kernel.arg_names, plan)
        pre = []
        for p in kernel.arg_names:
            if p in values:
                ir, ty = values[p]
            else:
                ir, ty = self._fold_default(kernel, defaults[p])
            rebinds = p in kernel.bound_names
            if not rebinds and is_pure(ir):
                scope.consts[p] = (ir, ty)
            elif not rebinds and ir_nodes.is_var(ir):
                scope.names[p] = ir["slot"]  # an alias: writes land in the caller's tensor
            else:
                slot = self.new_slot(prefix + p)
                scope.names[p] = slot
                self.set_ty(slot, ir, ty)
                pre.append(ir_nodes.assign(caller_line, slot, ir))
        dumps = self.task_dumps(dumps) if callee.kind in INCORE_KINDS else ()
        # `pl.no_dep(x)` arguments of an InCore call: that task's windows of x give it no edges
        # (PyPTO's NoDep argument direction), as no_dep_args= does for a pl.at.
        no_dep = [scope.names[p] for p, arg in given.items()
                  if p in scope.names and self._is_no_dep(arg)] if callee.kind in INCORE_KINDS else []
        with self.region(scope=scope, incore=callee.kind in INCORE_KINDS, splicing=kernel,
                         kind=callee.kind):
            body = self.block(kernel.func.body)
        self.drop_scope_tags(scope)
        if callee.kind in INCORE_KINDS:  # one InCore task, as if written in a pl.at
            body = [ir_nodes.at(caller_line, callee.name, body, dumps, task=self.task_fields(no_dep=no_dep))]
        self.pending.extend(pre)
        self.pending.extend(body)
        if plan.mode != "fresh":
            return const("none", None), Ty("none")
        pairs = [self.read_slot(s) for s in plan.slots]
        if len(pairs) == 1:
            return pairs[0]
        return (ir_nodes.tuple_(p[0] for p in pairs),
                Ty("tuple", items=tuple(p[1] for p in pairs)))

    def _is_no_dep(self, arg):
        """Whether a call argument is `pl.no_dep(...)`."""
        return isinstance(arg, ast.Call) and isinstance(arg.func, (ast.Name, ast.Attribute)) \
            and self.text(arg.func).rsplit(".", 1)[-1] == "no_dep" \
            and getattr(self.callee(arg), "_pypto_special", None) == "no_dep"

    def _fold_default(self, kernel, value):
        with self.region(scope=Scope(kernel)):
            return self.fold(kernel.func, value)

    def _callee_return(self, node, plan, pairs):
        if plan.mode == "discard":
            return [ir_nodes.expr_stmt(self.stmt_line(node), ir) for ir, _ in pairs
                    if not (ir_nodes.is_const(ir) or ir_nodes.is_var(ir))]
        slots = plan.slots
        if len(slots) == len(pairs):
            stmt = self._assign_many(node, slots, pairs)
            return [] if stmt is None else [stmt]
        # One target for several values (a tuple), or several targets for one value.
        if len(slots) == 1:
            ir = ir_nodes.tuple_(p[0] for p in pairs)
            ty = Ty("tuple", value=ir if is_pure(ir) else None,
                    items=tuple(p[1] for p in pairs))
            return [self._assign_many(node, slots, [(ir, ty)])]
        ir, ty = pairs[0]
        return [self.unpack(node, [self.slots[s] for s in slots], ir, ty, slots=slots)]
