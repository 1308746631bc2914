"""JITFunction: a `@pl.jit` kernel. compile() specialises on its arguments and returns the
cached CompiledProgram; calling it compiles (sample mode) and dispatches in place."""

import inspect
import threading

from pypto import compiler
from pypto.jit.compiled_program import CompiledProgram, as_run_config
from pypto.jit.specialize import specialise


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
        self.param_names = list(inspect.signature(fn).parameters)
        self._cache = {}
        self._lock = threading.RLock()
        self._parsed = None  # (KernelSource, [ParamDecl]), read on first compile

    def __repr__(self):
        return "JITFunction(%r, func_type=%r)" % (self.__name__, self._func_type)

    def _kernel(self):
        if self._parsed is None:
            kernel = compiler.KernelSource(self._func)
            self._parsed = (kernel, compiler.read_params(kernel))
        return self._parsed

    def _compile(self, args, kwargs, config, for_call):
        config = as_run_config(config)
        with self._lock:
            kernel, decls = self._kernel()
            spec = specialise(kernel, decls, args, kwargs, for_call)
            # Module constants are frozen at first compile, as in pypto: not in the key.
            key = (kernel.source_file, kernel.source, spec.key, config.platform,
                   repr(config.strategy), repr(config.dump_passes), config.save_kernels_dir)
            program = self._cache.get(key)
            if program is None:
                out, ir, meta = compiler.build(kernel, spec, config)
                program = CompiledProgram(out, ir, meta)
                self._cache[key] = program
        return program, spec

    def compile(self, *args, config=None, **kwargs):
        """Sample mode (torch tensors among the arguments) or signature mode (none: shapes
        from annotations, scalars by keyword, pl.RUNTIME keeps one unspecialised)."""
        return self._compile(args, kwargs, config, for_call=False)[0]

    def __call__(self, *args, config=None, **kwargs):
        """Compile on these arguments (sample mode) and run in place; returns None."""
        program, spec = self._compile(args, kwargs, config, for_call=True)
        return program(*spec.values, config=config)
