"""The one table of `pl.*` runtime ops the frontend accepts. Adding an op = adding a row here
and registering the same name in the simulator (host/sim/ops/, see host/sim/IR.md "Ops").

Each row: positional parameters (callers may also pass them by keyword; the IR passes them
positionally, without gaps), how many are required, and the keyword-only names. The C++
registration of the op accepts the same arity and keywords."""

from collections import namedtuple

# params: positional parameter names (may also be passed by keyword);
# required: how many of them must be given; keywords: keyword-only names.
OpSpec = namedtuple("OpSpec", "params required keywords")


def _op(params, required=None, keywords=()):
    return OpSpec(params=tuple(params), required=len(params) if required is None else required,
                  keywords=tuple(keywords))


_BINARY = _op(("lhs", "rhs"))
_UNARY = _op(("input",))
_UNARY_HP = _op(("input",), keywords=("high_precision",))
_ROW_REDUCE = _op(("input", "tmp_tile"), 1)

# Runtime ops: each becomes an IR `call` node (host/sim/IR.md) with `op` = its name.
OPS = {
    # Elementwise: a scalar rhs selects the scalar form.
    "add": _BINARY,
    "sub": _BINARY,
    "mul": _BINARY,
    "div": _op(("lhs", "rhs"), keywords=("high_precision",)),
    "maximum": _BINARY,
    "minimum": _BINARY,
    "neg": _UNARY,
    "abs": _UNARY,
    "exp": _UNARY,
    "log": _UNARY_HP,
    "sqrt": _UNARY,
    "rsqrt": _UNARY_HP,
    "recip": _UNARY_HP,
    "cmp": _op(("lhs", "rhs", "cmp_type"), 2),
    "fmods": _BINARY,
    # Creation.
    "create_tensor": _op(("shape", "dtype"), keywords=("layout", "manual_dep", "init_value")),
    "create_tile": _op(("shape", "dtype"), keywords=("target_memory", "valid_shape")),
    "create_l1": _op(("shape", "dtype", "transpose"), 2),
    "full": _op(("shape", "dtype", "value"), keywords=("valid_shape",)),
    "arange": _op(("start", "shape", "dtype"), 2, keywords=("descending",)),
    # Views, data movement, element access.
    "slice": _op(("input", "shape", "offset", "valid_shape"), 3,
                 keywords=("drop_dims", "pad_value", "clamp")),
    "reshape": _op(("input", "shape")),
    "transpose": _op(("input", "axis1", "axis2")),
    "transpose_view": _op(("tile",)),
    "concat": _op(("src0", "src1")),
    "load": _op(("tensor", "offsets", "shapes", "valid_shape"), 3,
                keywords=("target_memory", "clamp")),
    "store": _op(("tile", "offsets", "output_tensor", "shapes"), 3, keywords=("atomic",)),
    "assemble": _op(("target", "source", "offset"), keywords=("atomic",)),
    "gather_row": _op(("acc", "src", "dst_offset", "src_offset", "shapes", "transpose"), 5,
                      keywords=("valid_shape",)),
    "move": _op(("tile", "target_memory"), 1, keywords=("blayout", "slayout")),
    "set_validshape": _op(("input", "valid_rows", "valid_cols")),
    "fillpad": _op(("input", "pad_value"), 1),
    "read": _op(("src", "offset")),
    "write": _op(("dst", "offset", "value")),
    "dim": _op(("input", "axis")),
    # Reductions and broadcasts.
    "row_sum": _ROW_REDUCE,
    "row_max": _ROW_REDUCE,
    "row_min": _ROW_REDUCE,
    "col_sum": _ROW_REDUCE,
    "col_max": _UNARY,
    "col_min": _UNARY,
    "row_argmax": _ROW_REDUCE,
    "row_argmin": _ROW_REDUCE,
    "col_argmax": _ROW_REDUCE,
    "col_argmin": _ROW_REDUCE,
    "row_expand_add": _op(("lhs", "rhs", "tmp"), 2),
    "row_expand_sub": _BINARY,
    "row_expand_mul": _BINARY,
    "row_expand_div": _BINARY,
    "row_expand_max": _BINARY,
    "row_expand_min": _BINARY,
    "row_expand_expdif": _BINARY,
    "row_expand": _BINARY,
    "col_expand_add": _BINARY,
    "col_expand_sub": _BINARY,
    "col_expand_mul": _BINARY,
    "col_expand_div": _BINARY,
    "col_expand_max": _BINARY,
    "col_expand_min": _BINARY,
    "col_expand_expdif": _BINARY,
    "col_expand": _BINARY,
    # Matmul family.
    "matmul": _op(("lhs", "rhs"), keywords=("out_dtype", "a_trans", "b_trans", "c_matrix_nz")),
    "matmul_acc": _op(("acc", "lhs", "rhs"), keywords=("a_trans", "b_trans", "init_cond")),
    # Cast: tensors and scalars.
    "cast": _op(("input", "target_type", "mode"), 2),
    # Sort / top-k / gather.
    "sort32": _op(("src", "idx")),
    "mrgsort": _op(("src0", "src1", "src2", "src3"), 1, keywords=("block_len", "exhausted", "tmp")),
    "gather": _op(("input", "dim", "index"), 1, keywords=("mask_pattern", "output_dtype")),
    "scatter": _op(("input", "dim", "index", "src"), 1, keywords=("mask_pattern", "dst")),
    # Scalars.
    "min": _BINARY,
    "max": _BINARY,
    # Arrays (pl.array.create / arr[i] / arr[i] = v): small 1-D integer, BOOL or task-id
    # arrays written in place.
    "array_create": _op(("extent", "dtype")),
    "array_get_element": _op(("array", "index")),
    "array_update_element": _op(("array", "index", "value")),
    # pl.system.task_dummy(deps=[...]): a barrier task (the site's id, its deps, line, manual).
    "task_dummy": _op(("id", "deps", "line", "manual")),
}

# The distributed DSL's runtime ops (`pld.*`, pypto.language.distributed): IR ops like the
# above, but not spelled under `pl.` (the pld placeholders name them).
PLD_OPS = {
    # Host program (@pl.jit.host) only: window buffers and their typed views.
    "window_alloc": _op(("size",), keywords=("dtype", "name")),
    "window_view": _op(("buf", "shape"), keywords=("dtype",)),
    # Chip programs: one-sided traffic with a peer rank's window, and signals.
    "remote_load": _op(("target", "peer", "offsets", "shape", "valid_shape"), 4),
    "remote_store": _op(("src", "target", "peer", "offsets"), keywords=("atomic",)),
    "remote_put": _op(("dst", "peer", "src", "dst_offsets", "src_offsets", "shape"), 3,
                      keywords=("atomic", "chunk_rows", "chunk_cols", "pipeline")),
    "remote_get": _op(("dst", "peer", "src", "dst_offsets", "src_offsets", "shape"), 3,
                      keywords=("chunk_rows", "chunk_cols", "pipeline")),
    "signal_notify": _op(("target", "peer", "offsets", "value"), keywords=("op",)),
    "signal_wait": _op(("signal", "offsets", "expected"), keywords=("cmp",)),
}

# Kept for older frontend code; the frontend's own constructs live in constructs.py.
LOOP_ITERATORS = {
    "range": "range",
    "parallel": "parallel",
}
LOOP_PARAMS = ("start", "stop", "step")
REGIONS = {
    "at": ("level", "name_hint"),
}


def describe(name):
    """`pl.add(lhs, rhs)`-style signature text for error messages."""
    spec = OPS[name]
    parts = list(spec.params[:spec.required])
    parts += ["%s=None" % p for p in spec.params[spec.required:]]
    parts += ["%s=..." % k for k in spec.keywords]
    return "pl.%s(%s)" % (name, ", ".join(parts))
