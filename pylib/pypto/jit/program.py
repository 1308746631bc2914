"""`@pl.program` classes of `@pl.function` methods.

The result is not a Python class: it is a Program object with what the harness needs from a
kernel (`__name__`, `param_names`, `compile(*args, config=...)`, calling it in place). The
entry is the one Orchestration / Opaque function (or the only function); calls
`self.method(...)` are spliced into it like `@pl.jit.inline` / `@pl.jit.incore` calls.
Shapes come from the annotations (pl.dynamic dims stay runtime extents) and scalar
parameters are runtime parameters, as in pypto, where a program is not specialised."""

import inspect
import threading

from pypto.compiler.errors import KernelCompileError
from pypto.language.types import FunctionType

_FUNCTION_OPTIONS = ("type", "level", "role", "auto_scope", "strict_ssa", "external_source")
_ENTRY_TYPES = ("Orchestration", "Opaque")


def _type_name(value):
    """The member name of a pl.FunctionType (any enum class of that name is accepted)."""
    if isinstance(value, FunctionType) or type(value).__name__ == "FunctionType":
        return value.name
    raise TypeError("pl.function(type=...) takes a pl.FunctionType member, got %r" % (value,))


class ProgramFunction:
    """A `@pl.function` method, as stored in the class body."""

    def __init__(self, fn, options):
        self.fn = fn
        self.type_name = _type_name(options.get("type", FunctionType.Opaque))
        self.options = options
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __repr__(self):
        return "pl.function(%s, type=pl.FunctionType.%s)" % (self.__name__, self.type_name)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("@pl.function '%s' was called from Python: program functions are "
                           "compiled, not executed; call the program's compile()"
                           % self.__name__)


def function(fn=None, **options):
    """`@pl.function` / `@pl.function(type=pl.FunctionType.InCore, ...)`."""
    for key in options:
        if key not in _FUNCTION_OPTIONS:
            raise TypeError("pl.function() got an unexpected keyword argument %r" % key)
    if fn is None:
        return lambda f: ProgramFunction(f, options)
    if not callable(fn) or not hasattr(fn, "__code__"):
        raise TypeError("@pl.function decorates a method, got %r" % (fn,))
    return ProgramFunction(fn, options)


def _where(cls, functions):
    """(file, line) of the class statement, for errors about the program as a whole."""
    try:
        return inspect.getsourcefile(cls), inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        code = next(iter(functions.values())).fn.__code__ if functions else None
        return (code.co_filename, code.co_firstlineno) if code else ("<unknown>", 0)


class Program:
    def __init__(self, cls, options):
        self.__name__ = cls.__name__
        self.__qualname__ = getattr(cls, "__qualname__", cls.__name__)
        self.__module__ = cls.__module__
        self.__doc__ = cls.__doc__
        self._options = dict(options)
        self._functions = {name: f for name, f in vars(cls).items()
                           if isinstance(f, ProgramFunction)}
        self._kernels = {}
        self._cache = {}
        self._lock = threading.RLock()
        file, line = _where(cls, self._functions)
        if not self._functions:
            raise KernelCompileError(file, line, "@pl.program '%s' has no @pl.function methods"
                                     % self.__name__)
        entries = [n for n, f in self._functions.items() if f.type_name in _ENTRY_TYPES]
        if len(entries) > 1:
            raise KernelCompileError(file, line, "@pl.program '%s' has %d Orchestration/Opaque "
                                     "functions (%s); exactly one is the entry"
                                     % (self.__name__, len(entries), ", ".join(entries)))
        if not entries and len(self._functions) > 1:
            raise KernelCompileError(file, line, "@pl.program '%s' has no Orchestration/Opaque "
                                     "function to be its entry" % self.__name__)
        self._entry = entries[0] if entries else next(iter(self._functions))
        params = list(inspect.signature(self._functions[self._entry].fn).parameters)
        self.param_names = params[1:]

    def __repr__(self):
        return "Program(%r, entry=%r)" % (self.__name__, self._entry)

    def _kernel(self, name):
        if name not in self._kernels:
            from pypto import compiler
            kernel = compiler.KernelSource(self._functions[name].fn, has_self=True)
            decls = compiler.read_params(kernel) if name == self._entry else None
            self._kernels[name] = (kernel, decls)
        return self._kernels[name]

    def callee(self, name):
        """The Callee of `self.<name>(...)`, or None when there is no such function."""
        f = self._functions.get(name)
        if f is None:
            return None
        from pypto import compiler
        return compiler.Callee(self._kernel(name)[0], f.type_name, name, program=self)

    def _compile(self, args, kwargs, config, for_call):
        from pypto.jit.function import compile_entry, helper_sources
        kernel, decls = self._kernel(self._entry)
        helpers = {}
        for n in self._functions:
            helper_sources(self._kernel(n)[0], helpers)
        sources = sorted(set((k.source_file, k.source) for k, _ in
                             (self._kernel(n) for n in self._functions))
                         | set(helpers.values()))
        return compile_entry(self, kernel, decls, args, kwargs, config, for_call,
                             all_runtime=True, kind=self._functions[self._entry].type_name,
                             program=self, sources=sources)

    def compile(self, *args, config=None, **kwargs):
        """Compile the entry (sample tensors, if given, are checked against the annotations;
        scalar values are accepted and ignored: program scalars are runtime parameters)."""
        return self._compile(args, kwargs, config, for_call=False)[0]

    def __call__(self, *args, config=None, **kwargs):
        """Compile and run in place on these arguments; returns None."""
        program, spec = self._compile(args, kwargs, config, for_call=True)
        return program(*spec.values, config=config)


def program(cls=None, **options):
    """`@pl.program` / `@pl.program(strict_ssa=True)` on a class of @pl.function methods."""
    for key in options:
        if key not in ("strict_ssa",):
            raise TypeError("pl.program() got an unexpected keyword argument %r" % key)
    if cls is None:
        return lambda c: Program(c, options)
    if not inspect.isclass(cls):
        raise TypeError("@pl.program decorates a class, got %r" % (cls,))
    return Program(cls, options)
