"""Kernel parameters as declared: name, line, and what the annotation says (kind,
direction, shape, dtype). Arguments are matched against these by pypto.jit.specialize."""

from pypto.compiler.kernel_source import MISSING
from pypto.language import dtypes
from pypto.language.dtypes import TASK_ID
from pypto.language.types import (
    ArrayType, DirectionType, Scalar, ScalarType, Tensor, TensorType,
)

_PY_SCALAR_DTYPES = {bool: dtypes.BOOL, int: dtypes.INT64, float: dtypes.FP32}


class ParamDecl:
    """kind: "tensor", "scalar" or None (unannotated: decided by the argument).
    shape: tuple of dims (int or DynVar) or None (bare pl.Tensor / unannotated)."""

    __slots__ = ("name", "line", "kind", "direction", "shape", "dtype", "default")

    def __init__(self, name, line, kind=None, direction="In", shape=None, dtype=None,
                 default=MISSING):
        self.name, self.line, self.kind, self.direction = name, line, kind, direction
        self.shape, self.dtype, self.default = shape, dtype, default

    @property
    def fully_annotated(self):
        return self.kind == "tensor" and self.shape is not None and self.dtype is not None


def _apply_annotation(decl, ann):
    if isinstance(ann, DirectionType):
        decl.direction = ann.direction
        ann = ann.inner
    if ann is Tensor:
        decl.kind = "tensor"
    elif isinstance(ann, TensorType):
        decl.kind, decl.shape, decl.dtype = "tensor", ann.shape, ann.dtype
    elif isinstance(ann, ScalarType):
        decl.kind, decl.dtype = "scalar", ann.dtype
    elif ann is Scalar:
        decl.kind = "scalar"
    elif isinstance(ann, dtypes.DataType):
        decl.kind, decl.dtype = "scalar", ann
    elif isinstance(ann, type) and ann in _PY_SCALAR_DTYPES:
        decl.kind, decl.dtype = "scalar", _PY_SCALAR_DTYPES[ann]
    else:
        return False
    return True


def read_params(kernel):
    """ParamDecls in signature order, from the AST (lines) and the function (annotations,
    defaults). Only plain positional-or-keyword parameters are supported."""
    args = kernel.func.args
    for what, present in (("positional-only parameters", args.posonlyargs),
                          ("*args", args.vararg), ("keyword-only parameters", args.kwonlyargs),
                          ("**kwargs", args.kwarg)):
        if present:
            raise kernel.error(kernel.func, "kernel '%s': %s are not supported"
                               % (kernel.name, what))
    annotations = getattr(kernel.fn, "__annotations__", {})
    defaults = kernel.fn.__defaults__ or ()
    first_default = len(args.args) - len(defaults)
    decls = []
    params = args.args
    if kernel.has_self:
        if not params:
            raise kernel.error(kernel.func, "@pl.function '%s' must take 'self' as its first "
                               "parameter" % kernel.name)
    for i, arg in enumerate(params):
        if kernel.has_self and i == 0:
            continue
        decl = ParamDecl(arg.arg, arg.lineno)
        if i >= first_default:
            decl.default = defaults[i - first_default]
        ann = annotations.get(arg.arg, MISSING)
        if isinstance(ann, str):
            try:
                ann = kernel.eval_annotation(ann)
            except Exception as exc:  # any failure of user code is reported at the param
                raise kernel.error(arg, "parameter '%s': cannot evaluate annotation %r: %s: %s"
                                   % (arg.arg, annotations[arg.arg], type(exc).__name__, exc))
        if isinstance(ann, ArrayType) or (isinstance(ann, ScalarType) and ann.dtype is TASK_ID):
            what = "a pl.Array" if isinstance(ann, ArrayType) else "a pl.Scalar[pl.TASK_ID]"
            raise kernel.error(arg, "parameter '%s': %s cannot be a kernel parameter: it lives in "
                               "the function that creates it (arrays and task ids are passed "
                               "only to @pl.jit.inline helpers)" % (arg.arg, what))
        if ann is not MISSING and not _apply_annotation(decl, ann):
            raise kernel.error(arg, "parameter '%s': unsupported annotation %r (expected "
                               "pl.Tensor[[dims], dtype], pl.Out[...], pl.InOut[...] or "
                               "pl.Scalar[dtype])" % (arg.arg, ann))
        missing = decl.dtype.missing_from_torch() if decl.dtype is not None else ""
        if missing:
            raise kernel.error(arg, "parameter '%s': %s" % (arg.arg, missing))
        decls.append(decl)
    return decls

