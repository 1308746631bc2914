"""`pl.jit`: `@pl.jit` / `@pl.jit(...)` entry kernels, and the helpers spliced into them:
`@pl.jit.inline` and `@pl.jit.incore` / `@pl.jit.incore(level=...)`."""

_JIT_OPTIONS = ("auto_scope",)
_INLINE_OPTIONS = ("auto_scope",)
_INCORE_OPTIONS = ("level",)


def _not_yet(kind):
    def decorator(*args, **kwargs):
        raise NotImplementedError(
            "@pl.jit.%s is not supported by the bundled pypto-golden frontend yet" % kind)
    decorator.__name__ = kind
    return decorator


def _make(fn, func_type, options, allowed, spelled):
    for key in options:
        if key not in allowed:
            raise TypeError("%s() got an unexpected keyword argument %r" % (spelled, key))
    from pypto.jit.function import JITFunction  # lazy: breaks the pypto.language cycle

    def wrap(f):
        if not callable(f) or not hasattr(f, "__code__"):
            raise TypeError("@%s decorates a Python function, got %r" % (spelled, f))
        return JITFunction(f, func_type=func_type, options=options,
                           level=options.get("level"))
    if fn is None:  # @pl.jit.xxx(...) form
        return wrap
    return wrap(fn)


class _JITDecorator:
    host = staticmethod(_not_yet("host"))
    opaque = staticmethod(_not_yet("opaque"))
    extern = staticmethod(_not_yet("extern"))

    def __call__(self, fn=None, **options):
        return _make(fn, "orchestration", options, _JIT_OPTIONS, "pl.jit")

    @staticmethod
    def inline(fn=None, **options):
        """A helper spliced at each call site; its writes land in the caller's tensors."""
        return _make(fn, "inline", options, _INLINE_OPTIONS, "pl.jit.inline")

    @staticmethod
    def incore(fn=None, **options):
        """An InCore function: spliced at each call site, its body is an InCore region."""
        return _make(fn, "incore", options, _INCORE_OPTIONS, "pl.jit.incore")

    def __repr__(self):
        return "pl.jit"


jit = _JITDecorator()
