"""JITFunction: a `@pl.jit` kernel (or a `@pl.jit.inline` / `@pl.jit.incore` helper spliced
into one). compile() specialises an entry on its arguments and returns the cached
CompiledProgram; calling it compiles (sample mode) and dispatches in place."""

import ast
import inspect
import threading

from pypto import compiler
from pypto.compiler.kernel_source import MISSING
from pypto.ir.program import Program
from pypto.jit.compiled_program import CompiledProgram, as_run_config
from pypto.jit.distributed_compiled_program import DistributedCompiledProgram
from pypto.jit.specialize import specialise

_HELPER_KINDS = ("inline", "incore")
# What a @pl.jit.host program's body reaches: the helpers, and the chip programs it launches.
_HOST_REACHES = _HELPER_KINDS + ("orchestration",)


def compile_entry(owner, kernel, decls, args, kwargs, config, for_call, *, all_runtime=False,
                  kind="orchestration", program=None, sources=()):
    """Specialise, look up owner._cache, build on a miss. Returns (CompiledProgram, spec)."""
    config = as_run_config(config)
    with owner._lock:
        spec = specialise(kernel, decls, args, kwargs, for_call, all_runtime)
        # Module constants are frozen at first compile, as in pypto: not in the key. The
        # sources of the entry and of every function spliced into it are.
        key = (kernel.source_file, kernel.source, tuple(sources), spec.key, config.platform,
               repr(config.strategy), repr(config.dump_passes), config.save_kernels_dir,
               repr(config.distributed_config) if kind == "host" else None)
        compiled = owner._cache.get(key)
        if compiled is None:
            out, ir, meta = compiler.build(kernel, spec, config, kind, program,
                                           name=owner.__name__)
            compiled = (DistributedCompiledProgram if kind == "host" else CompiledProgram)(out, ir, meta)
            owner._cache[key] = compiled
    return compiled, spec


def helper_sources(kernel, seen=None, kinds=_HELPER_KINDS):
    """(file, source) of every function of `kinds` (@pl.jit.inline / .incore) the kernel
    calls, directly or through other helpers (the JIT's dependency discovery)."""
    seen = {} if seen is None else seen
    for node in ast.walk(kernel.func):
        if not isinstance(node, ast.Call):
            continue
        chain, base = [], node.func
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id in kernel.bound_names \
                or base.id in kernel.arg_names or base.id == kernel.self_name:
            continue
        obj = kernel.lookup(base.id)
        for attr in reversed(chain):
            obj = getattr(obj, attr, MISSING) if obj is not MISSING else MISSING
        if isinstance(obj, JITFunction) and obj._func_type in kinds \
                and id(obj) not in seen:
            helper = obj._kernel()[0]
            seen[id(obj)] = (helper.source_file, helper.source)
            helper_sources(helper, seen, kinds)
    return seen


class JITFunction:
    def __init__(self, fn, func_type="orchestration", options=None, level=None):
        self._func = fn
        self._func_type = func_type
        self._level = level
        self._options = dict(options or {})
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        self.param_names = list(inspect.signature(fn).parameters)
        self._cache = {}
        self._lock = threading.RLock()
        self._parsed = None  # (KernelSource, [ParamDecl]), read on first use

    def __repr__(self):
        return "JITFunction(%r, func_type=%r)" % (self.__name__, self._func_type)

    def _param_names(self):
        """PyPTO's spelling of param_names (scripts build their spec lists from it)."""
        return list(self.param_names)

    def _kernel(self):
        if self._parsed is None:
            kernel = compiler.KernelSource(self._func)
            # Helpers' annotations are not read: their parameters alias the caller's values.
            decls = compiler.read_params(kernel) if self._func_type not in _HELPER_KINDS else None
            self._parsed = (kernel, decls)
        return self._parsed

    def _pypto_callee(self):
        """What the compiler splices for a call of this function (None: an entry kernel,
        which cannot be called from another kernel)."""
        if self._func_type not in _HELPER_KINDS:
            return None  # an entry kernel (or host program): not spliced into a kernel
        return compiler.Callee(self._kernel()[0], self._func_type, self.__name__)

    def _check_entry(self):
        if self._func_type in _HELPER_KINDS:
            raise TypeError("%r is a @pl.jit.%s function: it is spliced into the kernels that "
                            "call it and cannot be compiled or run on its own"
                            % (self.__name__, self._func_type))

    def _compile(self, args, kwargs, config, for_call):
        self._check_entry()
        kernel, decls = self._kernel()
        host = self._func_type == "host"
        sources = sorted(helper_sources(kernel, kinds=_HOST_REACHES if host else _HELPER_KINDS).values())
        return compile_entry(self, kernel, decls, args, kwargs, config, for_call,
                             kind="host" if host else "orchestration", sources=sources)

    def compile(self, *args, config=None, **kwargs):
        """Sample mode (torch tensors among the arguments) or signature mode (none: shapes
        from annotations, scalars by keyword, pl.RUNTIME keeps one unspecialised)."""
        return self._compile(args, kwargs, config, for_call=False)[0]

    def lower(self, *args, config=None, **kwargs):
        """The specialised program without a build: PyPTO's lower() runs the passes and
        returns the IR, writing no artifact and touching no cache. Here: the translated
        simulator program as a pypto.ir.Program (sample or signature mode, as compile)."""
        self._check_entry()
        kernel, decls = self._kernel()
        host = self._func_type == "host"
        config = as_run_config(config)
        with self._lock:
            spec = specialise(kernel, decls, args, kwargs, False, False)
        devices = compiler.host_devices(config) if host else None
        program, _ = compiler.translate(kernel, spec, "host" if host else "orchestration", None, devices)
        return Program(program)

    def __call__(self, *args, config=None, **kwargs):
        """Compile on these arguments (sample mode) and run in place; returns None."""
        program, spec = self._compile(args, kwargs, config, for_call=True)
        return program(*spec.values, config=config)
