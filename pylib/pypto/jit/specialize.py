"""Binding the arguments of compile()/__call__ to the kernel parameters: sample mode (torch
tensors given: shapes and dtypes from them) or signature mode (no tensors: shapes from the
annotations, scalars by keyword), scalar specialisation (a scalar's value is baked into
the program) and pl.RUNTIME (the scalar stays a parameter read at dispatch)."""

import math
import warnings

from pypto.compiler.errors import KernelArgumentError, KernelArgumentMismatchError
from pypto.compiler.ir_nodes import fits_int64
from pypto.compiler.kernel_source import MISSING
from pypto.language import dtypes
from pypto.language.types import RUNTIME, DynVar


class BoundParam:
    """One parameter of a specialisation. For scalars `value` is the specialised Python
    number or RUNTIME; for tensors it is None (only shape and dtype matter)."""

    __slots__ = ("name", "line", "kind", "direction", "shape", "dtype", "value")

    def __init__(self, name, line, kind, direction, shape, dtype, value=None):
        self.name, self.line, self.kind, self.direction = name, line, kind, direction
        self.shape, self.dtype, self.value = shape, dtype, value

    @property
    def runtime(self):
        return self.value is RUNTIME

    def key(self):
        value = self.value
        if self.kind == "scalar" and value is not RUNTIME:
            value = (type(value).__name__, value)  # 1, 1.0 and True are different artifacts
        return (self.name, self.kind, self.direction, self.shape,
                self.dtype.name if self.dtype else None, "RUNTIME" if value is RUNTIME else value)


class Specialisation:
    def __init__(self, params, values):
        self.params = params    # [BoundParam] in signature order
        self.values = values    # the bound argument values, for dispatch by __call__
        self.key = tuple(p.key() for p in params)


def _dims(shape):
    return "[%s]" % ", ".join(d.name if isinstance(d, DynVar) else str(d) for d in shape)


def _is_number(v):
    return isinstance(v, (bool, int, float))


def _scalar_value(kernel, decl, dtype, value):
    """Check a specialised scalar against its dtype; returns the value to bake in."""
    where = "parameter '%s' (pl.Scalar[%s])" % (decl.name, dtype.const_name)
    if dtype is dtypes.BOOL:
        if not isinstance(value, bool):
            raise kernel.error(decl.line, "%s needs a bool, got %r" % (where, value),
                               KernelArgumentError)
        return value
    if dtype.is_float:
        value = float(value)
        if not math.isfinite(value):
            raise kernel.error(decl.line, "%s: %r cannot be specialised into the program"
                               % (where, value), KernelArgumentMismatchError)
        return value
    if isinstance(value, float):
        raise kernel.error(decl.line, "%s needs an int, got %r" % (where, value),
                           KernelArgumentError)
    value = int(value)
    if not fits_int64(value):
        raise kernel.error(decl.line, "%s: %d does not fit in 64 bits" % (where, value),
                           KernelArgumentMismatchError)
    return value


def _bind_tensor(kernel, decl, value, dynamic, sample_wins):
    """A tensor parameter. pl.dynamic dims become None (a runtime extent: -1 in the IR and
    compiled_meta.json); `dynamic` maps each DynVar to the extent seen first. sample_wins:
    a @pl.jit entry, compiled for the passed tensor's extents where a static dim of its
    annotation differs, as PyPTO's JIT does (with a warning); a @pl.program's annotations
    are its signature, and a tensor that differs is an error."""
    import torch
    if value is MISSING:  # signature mode: everything from the annotation
        if decl.shape is None or decl.dtype is None:
            raise kernel.error(decl.line, "parameter '%s' has a bare 'pl.Tensor' annotation: "
                               "signature-mode compile() needs pl.Tensor[[dims], dtype] (or "
                               "pass sample tensors)" % decl.name, KernelArgumentError)
        shape = tuple(None if isinstance(d, DynVar) else d for d in decl.shape)
        return BoundParam(decl.name, decl.line, "tensor", decl.direction, shape, decl.dtype)
    if value is RUNTIME:
        raise kernel.error(decl.line, "parameter '%s' is a tensor: pl.RUNTIME only applies "
                           "to scalar parameters" % decl.name, KernelArgumentError)
    if not isinstance(value, torch.Tensor):
        raise kernel.error(decl.line, "parameter '%s' is a tensor but a %s was passed"
                           % (decl.name, type(value).__name__), KernelArgumentError)
    dtype = dtypes.from_torch(value.dtype)
    if dtype is None:
        raise kernel.error(decl.line, "parameter '%s': tensor dtype %s has no PyPTO "
                           "equivalent" % (decl.name, value.dtype), KernelArgumentError)
    shape = tuple(int(d) for d in value.shape)
    if decl.shape is not None and (len(decl.shape) != len(shape) or any(
            not isinstance(a, DynVar) and a != s for a, s in zip(decl.shape, shape))):
        mismatch = "parameter '%s': annotated shape %s but the tensor passed has shape %s" % (
            decl.name, _dims(decl.shape), _dims(shape))
        if not sample_wins or len(decl.shape) != len(shape):
            raise kernel.error(decl.line, mismatch, KernelArgumentMismatchError)
        warnings.warn_explicit(mismatch + "; compiled for the tensor's shape, as PyPTO's JIT does",
                               UserWarning, kernel.source_file, decl.line)
    if decl.dtype is not None and decl.dtype is not dtype:
        raise kernel.error(decl.line, "parameter '%s': annotated dtype %s but the tensor "
                           "passed has dtype %s" % (decl.name, decl.dtype, dtype),
                           KernelArgumentMismatchError)
    if decl.shape is not None:
        for axis, (a, s) in enumerate(zip(decl.shape, shape)):
            if isinstance(a, DynVar):
                seen = dynamic.setdefault(a, (s, decl.name))
                if seen[0] != s:
                    raise kernel.error(decl.line, "parameter '%s': dim %d is %r = %d here but %d "
                                       "in parameter '%s'" % (decl.name, axis, a, s, seen[0],
                                                              seen[1]),
                                       KernelArgumentMismatchError)
        shape = tuple(None if isinstance(a, DynVar) else s for a, s in zip(decl.shape, shape))
    return BoundParam(decl.name, decl.line, "tensor", decl.direction, shape, dtype)


def _bind_scalar(kernel, decl, value, signature_mode, from_default, all_runtime=False):
    import torch
    if isinstance(value, torch.Tensor):
        raise kernel.error(decl.line, "parameter '%s' is a scalar but a torch.Tensor was "
                           "passed" % decl.name, KernelArgumentError)
    if all_runtime:  # a @pl.program: scalars are always runtime parameters
        if decl.dtype is None:
            raise kernel.error(decl.line, "parameter '%s': a @pl.function scalar parameter "
                               "needs a pl.Scalar[dtype] annotation" % decl.name,
                               KernelArgumentError)
        if not (value is MISSING or value is RUNTIME or _is_number(value)):
            raise kernel.error(decl.line, "scalar parameter '%s' must be an int, float, bool or "
                               "pl.RUNTIME, got %s" % (decl.name, type(value).__name__),
                               KernelArgumentError)
        return BoundParam(decl.name, decl.line, "scalar", "In", None, decl.dtype, RUNTIME)
    if value is MISSING:
        raise kernel.error(decl.line, "scalar parameter '%s' has no value. Pass '%s=<value>' "
                           "to specialise it or '%s=pl.RUNTIME' to keep it a runtime "
                           "parameter" % (decl.name, decl.name, decl.name), KernelArgumentError)
    if value is RUNTIME:
        if not (signature_mode or from_default):
            raise kernel.error(decl.line, "parameter '%s': pl.RUNTIME is a compile-time marker, "
                               "accepted only by compile() in signature mode (no tensor "
                               "arguments)" % decl.name, KernelArgumentError)
        if decl.dtype is None:
            raise kernel.error(decl.line, "parameter '%s': a pl.RUNTIME scalar needs a "
                               "pl.Scalar[dtype] annotation" % decl.name, KernelArgumentError)
        return BoundParam(decl.name, decl.line, "scalar", "In", None, decl.dtype, RUNTIME)
    if not _is_number(value):
        raise kernel.error(decl.line, "scalar parameter '%s' must be an int, float, bool or "
                           "pl.RUNTIME, got %s" % (decl.name, type(value).__name__),
                           KernelArgumentError)
    dtype = decl.dtype
    if dtype is None:  # unannotated / bare pl.Scalar: Python literal dtypes
        dtype = dtypes.BOOL if isinstance(value, bool) else (
            dtypes.INT64 if isinstance(value, int) else dtypes.FP32)
    return BoundParam(decl.name, decl.line, "scalar", "In", None, dtype,
                      _scalar_value(kernel, decl, dtype, value))


def specialise(kernel, decls, args, kwargs, for_call, all_runtime=False):
    """Bind args/kwargs to decls. for_call: a dispatching call, so every parameter needs an
    actual value (sample mode only). all_runtime: a @pl.program entry, whose scalars are
    never specialised."""
    import torch
    n = len(decls)
    if len(args) > n:
        raise kernel.error(kernel.func, "%s() takes %d arguments (%s) but %d were given"
                           % (kernel.name, n, ", ".join(d.name for d in decls), len(args)),
                           KernelArgumentError)
    values = list(args) + [MISSING] * (n - len(args))
    index = {d.name: i for i, d in enumerate(decls)}
    for name, value in kwargs.items():
        if name not in index:
            raise kernel.error(kernel.func, "%s() got an unexpected keyword argument '%s'"
                               % (kernel.name, name), KernelArgumentError)
        if values[index[name]] is not MISSING:
            raise kernel.error(kernel.func, "%s() got multiple values for argument '%s'"
                               % (kernel.name, name), KernelArgumentError)
        values[index[name]] = value
    from_default = [False] * n
    for i, d in enumerate(decls):
        if values[i] is MISSING and d.default is not MISSING:
            values[i], from_default[i] = d.default, True
    signature_mode = not for_call and not any(isinstance(v, torch.Tensor) for v in values)
    if not signature_mode:
        missing = [d.name for d, v, dflt in zip(decls, values, from_default)
                   if (v is MISSING and not (all_runtime and d.kind == "scalar" and not for_call))
                   or (for_call and dflt and v is RUNTIME)]
        if missing:
            raise kernel.error(kernel.func, "%s() missing %d required argument%s: %s"
                               % (kernel.name, len(missing), "s" if len(missing) > 1 else "",
                                  ", ".join("'%s'" % m for m in missing)), KernelArgumentError)
    bound = []
    dynamic = {}
    for d, v, dflt in zip(decls, values, from_default):
        kind = d.kind
        if kind is None:  # unannotated: the argument decides
            if isinstance(v, torch.Tensor):
                kind = "tensor"
            elif _is_number(v) or v is RUNTIME or (all_runtime and v is MISSING):
                kind = "scalar"
            elif v is MISSING:
                raise kernel.error(d.line, "parameter '%s' has no annotation and no value"
                                   % d.name, KernelArgumentError)
            else:
                raise kernel.error(d.line, "parameter '%s' has no annotation: pass a "
                                   "torch.Tensor or a number, got %s"
                                   % (d.name, type(v).__name__), KernelArgumentError)
        if kind == "tensor":
            bound.append(_bind_tensor(kernel, d, v, dynamic, sample_wins=not all_runtime))
        else:
            bound.append(_bind_scalar(kernel, d, v, signature_mode, dflt, all_runtime))
    return Specialisation(bound, values)
