"""Stand-ins for the `pl.*` callables: the runtime ops of op_table and the frontend's own
constructs (constructs.py), plus the namespaces `pl.tile`, `pl.tensor`, `pl.system`,
`pl.array` and `pl.prefetch`.
Kernel bodies are parsed, never run, so calling one of these from Python is always a
mistake; the frontend recognises them by the `_pypto_*` attributes set here.

`pl.tile.X` and `pl.tensor.X` are looked up in the op table when accessed, so a new row in
op_table.py appears under every spelling without touching this file."""

from pypto.language import constructs, enums, op_table

_MADE = {}  # name -> placeholder: pl.add is pl.tile.add is pl.tensor.add


def _eager_guard(kind, name):
    def placeholder(*args, **kwargs):
        raise RuntimeError(
            "pl.%s() was called from Python: %s are only meaningful inside a @pl.jit kernel "
            "body, which is compiled, not executed. Call the @pl.jit function (or its "
            "compile()) instead." % (name, kind))
    placeholder.__name__ = name
    placeholder.__qualname__ = name
    placeholder.__module__ = "pypto.language"
    return placeholder


def placeholder(name):
    """The one placeholder of `name`, or None when `name` is neither an op nor a construct."""
    made = _MADE.get(name)
    if made is not None:
        return made
    is_op = name in op_table.OPS or name in constructs.FRONTEND_OPS
    is_loop = name in constructs.LOOPS
    is_region = name in constructs.REGIONS
    is_special = name in constructs.SPECIALS
    if not (is_op or is_loop or is_region or is_special):
        return None
    kind = ("ops" if is_op else "loop iterators" if is_loop else
            "regions" if is_region else "DSL constructs")
    fn = _eager_guard(kind, name)
    if is_op:
        fn._pypto_op = name
    if is_loop:
        fn._pypto_loop = name
    if is_region:
        fn._pypto_region = name
    if is_special:
        fn._pypto_special = name
    _MADE[name] = fn
    return fn


def _namespaced(namespace, name, kind, marker, value=None):
    """The one placeholder of `pl.<namespace>.<name>`, recognised by its `marker` attribute
    (whose value is `value`, else `name`)."""
    key = namespace + "." + name
    if key not in _MADE:
        fn = _eager_guard(kind, key)
        setattr(fn, marker, value or name)
        _MADE[key] = fn
    return _MADE[key]


def _system_call(name):
    """pl.system.<name>: the barrier syncall, cache plumbing without effect, or a task-id
    construct (task_dummy, task_invalid)."""
    if name in constructs.SYSTEM_TASKS:
        return _namespaced("system", name, "system calls", "_pypto_task")
    if name in constructs.SYSTEM_NOOPS:
        return _namespaced("system", name, "system calls", "_pypto_system")
    return None


def _prefetch_call(name):
    """pl.prefetch.<name>: checked by the frontend, no effect on the simulator."""
    if name not in constructs.PREFETCH:
        return None
    return _namespaced("prefetch", name, "prefetch ops", "_pypto_prefetch")


_TILE_SPECIALS = ("get_block_idx", "get_block_num", "get_subblock_idx", "aiv_shard", "aic_gather")


class Namespace:
    """`pl.tile`, `pl.tensor`, `pl.system`, `pl.prefetch`: attribute access resolves to the same op
    placeholders and enums as the top-level `pl.X`."""

    _pypto_namespace = True

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "<pl.%s namespace>" % self._name

    def _resolve(self, attr):
        if self._name == "system":
            return _system_call(attr)
        if self._name == "prefetch":
            return _prefetch_call(attr)
        if self._name == "array":
            op = constructs.NAMESPACE_ALIASES.get(("array", attr))
            return placeholder(op) if op in op_table.OPS else None
        if attr in getattr(enums, "__all__", ()):
            return getattr(enums, attr)
        if self._name == "tile" and attr in constructs.TILE_FORMS:
            return _namespaced("tile", attr, "ops", "_pypto_op", constructs.TILE_FORMS[attr])
        alias = constructs.NAMESPACE_ALIASES.get((self._name, attr))
        if alias is not None and (alias in op_table.OPS or alias in constructs.FRONTEND_OPS):
            return placeholder(alias)
        if attr in op_table.OPS or attr in constructs.FRONTEND_OPS:
            return placeholder(attr)
        if self._name == "tile" and attr in _TILE_SPECIALS:
            return placeholder(attr)
        return None

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = self._resolve(attr)
        if value is None:
            raise AttributeError("pl.%s has no attribute %r" % (self._name, attr))
        return value

    def __dir__(self):
        if self._name == "system":
            return sorted(constructs.SYSTEM_NOOPS + constructs.SYSTEM_TASKS)
        if self._name == "prefetch":
            return sorted(constructs.PREFETCH)
        if self._name == "array":
            return sorted(a for (ns, a) in constructs.NAMESPACE_ALIASES if ns == "array")
        names = set(op_table.OPS) | set(constructs.FRONTEND_OPS)
        names |= set(getattr(enums, "__all__", ()))
        names |= {a for (ns, a), op in constructs.NAMESPACE_ALIASES.items()
                  if ns == self._name and (op in op_table.OPS or op in constructs.FRONTEND_OPS)}
        if self._name == "tile":
            names |= set(_TILE_SPECIALS)
        return sorted(names)


def make_all():
    """name -> object for the top level of `pl`: every op, loop iterator, region and special
    of the tables, and the namespaces."""
    names = (list(op_table.OPS) + list(constructs.FRONTEND_OPS) + list(constructs.LOOPS)
             + list(constructs.REGIONS) + list(constructs.SPECIALS))
    made = {name: placeholder(name) for name in names}
    made.update(tile=Namespace("tile"), tensor=Namespace("tensor"), system=Namespace("system"),
                array=Namespace("array"), prefetch=Namespace("prefetch"))
    return made
