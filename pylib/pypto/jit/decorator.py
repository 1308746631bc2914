"""`pl.jit`: `@pl.jit` / `@pl.jit(...)` entry kernels, and the helpers spliced into them:
`@pl.jit.inline` and `@pl.jit.incore` / `@pl.jit.incore(level=...)`."""

_JIT_OPTIONS = ("auto_scope",)
_INLINE_OPTIONS = ("auto_scope",)
_INCORE_OPTIONS = ("level",)
_HOST_OPTIONS = ()


class UnrunnableFunction:
    """A decorated function the simulator cannot run: `@pl.jit.extern(...)` (a kernel
    written in device C++: `source=` / `aic_source=` / `aiv_source=`) and `@pl.jit.opaque`.
    Defining one always works, so a script that defines or imports it still loads; calling
    it, compiling it or calling it from a kernel is one clear error naming it."""

    def __init__(self, kind, fn, options):
        self.kind = kind
        self._fn = fn
        self.options = dict(options)
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__

    def unsupported_message(self):
        if self.kind == "extern":
            sources = [str(self.options[k]) for k in ("source", "aic_source", "aiv_source") if self.options.get(k)]
            where = " (%s)" % ", ".join(dict.fromkeys(sources)) if sources else ""
            return ("'%s' is a @pl.jit.extern kernel: hand-written device C++%s, which the simulator cannot "
                    "execute; it runs only on an Ascend NPU" % (self.__name__, where))
        return ("'%s' is a @pl.jit.%s function, which the bundled pypto-golden frontend does not run yet"
                % (self.__name__, self.kind))

    def _unsupported(self, *args, **kwargs):
        raise NotImplementedError(self.unsupported_message())

    __call__ = compile = _unsupported

    def __repr__(self):
        return "<pl.jit.%s %s>" % (self.kind, self.__name__)


def _unrunnable(kind):
    def decorator(fn=None, **options):
        if fn is not None:
            return UnrunnableFunction(kind, fn, options)
        return lambda f: UnrunnableFunction(kind, f, options)
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
    opaque = staticmethod(_unrunnable("opaque"))
    extern = staticmethod(_unrunnable("extern"))

    def __call__(self, fn=None, **options):
        return _make(fn, "orchestration", options, _JIT_OPTIONS, "pl.jit")

    @staticmethod
    def inline(fn=None, **options):
        """A helper spliced at each call site; its writes land in the caller's tensors."""
        return _make(fn, "inline", options, _INLINE_OPTIONS, "pl.jit.inline")

    @staticmethod
    def host(fn=None, **options):
        """An L3 host program: allocates window buffers and launches a @pl.jit chip program per
        rank (`chip(..., device=r)`); compiled with RunConfig(distributed_config=...)."""
        return _make(fn, "host", options, _HOST_OPTIONS, "pl.jit.host")

    @staticmethod
    def incore(fn=None, **options):
        """An InCore function: spliced at each call site, its body is an InCore region."""
        return _make(fn, "incore", options, _INCORE_OPTIONS, "pl.jit.incore")

    def __repr__(self):
        return "pl.jit"


jit = _JITDecorator()
