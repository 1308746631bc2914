"""`pl.jit`: `@pl.jit` / `@pl.jit(...)`, with room for the `.inline` / `.incore` / ... family."""

_JIT_OPTIONS = ("auto_scope",)


def _not_yet(kind):
    def decorator(*args, **kwargs):
        raise NotImplementedError(
            "@pl.jit.%s is not supported by the bundled pypto-golden frontend yet" % kind)
    decorator.__name__ = kind
    return decorator


class _JITDecorator:
    inline = staticmethod(_not_yet("inline"))
    incore = staticmethod(_not_yet("incore"))
    host = staticmethod(_not_yet("host"))
    opaque = staticmethod(_not_yet("opaque"))
    extern = staticmethod(_not_yet("extern"))

    def __call__(self, fn=None, **options):
        for key in options:
            if key not in _JIT_OPTIONS:
                raise TypeError("pl.jit() got an unexpected keyword argument %r" % key)
        if fn is None:  # @pl.jit(...) form
            return lambda f: self._wrap(f, options)
        return self._wrap(fn, options)

    @staticmethod
    def _wrap(fn, options):
        from pypto.jit.function import JITFunction  # lazy: breaks the pypto.language cycle
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("@pl.jit decorates a Python function, got %r" % (fn,))
        return JITFunction(fn, func_type="orchestration", options=options)

    def __repr__(self):
        return "pl.jit"


jit = _JITDecorator()
