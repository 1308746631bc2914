"""golden.validation: the harness's validation gates, for ``run(compare_fn={"name": gate})``.

Each factory returns a comparator following the compare_fn protocol

    cmp(actual, expected, *, actual_outputs, expected_outputs, inputs, rtol, atol) -> (ok, detail)

whose ``__name__`` is the label shown in the run's report. The checks run natively in the
_pypto_golden core: one parallel pass over the data, no full-size temporaries, 16-bit floats
read in place. Any Python callable with the same protocol works in compare_fn as well.

- ``ratio_allclose``: |a - e| <= atol + rtol * |e| (float32), passing while the count of
  points outside is <= round(max_error_ratio * numel).
- ``ratio_reldiff``: floored symmetric relative difference, a bad-point budget and a cap.
- ``topk_pair_compare``: top-k idx output, tolerant of tie swaps (judged on the vals output).
- ``mapped_pool_ratio_allclose``: slot-mapped paged pools (KV-cache blocks).
- ``error_distribution``: a measurement (prints an error report), not a gate by default.

``validate_golden`` checks dicts of outputs against goldens outside ``run`` (the public
harness's function of that name), with the same gates and report.
"""

import math
import operator

from golden.native import native

__all__ = [
    "error_distribution",
    "mapped_pool_ratio_allclose",
    "ratio_allclose",
    "ratio_reldiff",
    "topk_pair_compare",
    "validate_golden",
]


def validate_golden(outputs, golden, rtol=1e-5, atol=1e-5, compare_fn=None, inputs=None):
    """Checks each tensor of ``outputs`` (name -> tensor, in order) against ``golden[name]``
    with allclose, or with ``compare_fn[name]`` (the compare_fn protocol; ``inputs`` is the
    context its comparators get, tensors and scalars by name). Prints one line per output
    as run's validate stage does; on a mismatch raises AssertionError with run's report
    (``Output(s) does not match golden: [...]`` and each failure's detail). A golden missing
    a name is a KeyError; a compare_fn key naming no output is a golden.SpecError."""
    if compare_fn is not None and not isinstance(compare_fn, dict):
        raise TypeError(f"compare_fn must be a dict of output name -> comparator, got {type(compare_fn).__name__}")
    native.validate_golden(dict(outputs), dict(golden), float(rtol), float(atol), compare_fn,
                           None if inputs is None else dict(inputs))


def _named(fn, name):
    fn.__name__ = name
    fn.__qualname__ = name
    return fn


def _count(what, value):
    """A non-negative int (bools are not counts)."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int, got bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int, got {type(value).__name__}") from None
    if value < 0:
        raise ValueError(f"{what} must be >= 0, got {value}")
    return value


def _int(what, value, *, optional=False):
    if value is None and optional:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int{' or None' if optional else ''}, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int{' or None' if optional else ''}, got {type(value).__name__}") from None


def _check_ratio(max_error_ratio):
    if not 0.0 <= max_error_ratio <= 1.0:
        raise ValueError(f"max_error_ratio must be in [0, 1], got {max_error_ratio}")


def topk_pair_compare(vals_name, *, dim=-1, descending=True, max_show=10):
    """Comparator for the idx output of a top-k op, tolerant of score-tie swaps.

    A position where the actual idx differs from the golden idx is legal iff the actual
    ``vals_name`` output stays monotone (>= for descending, <= for ascending, no tolerance)
    across both neighbour pairs of the position along ``dim``. Expected vals are not
    consulted, so keep the vals output on the default allclose to catch worse scores.
    With k = 1 (``dim`` of length 1) there are no neighbours: a mismatched idx is legal only
    when the actual value equals the expected value there (the public harness passes every
    k = 1 mismatch).

        compare_fn = {"topk_idx": topk_pair_compare("topk_vals")}
    """
    dim = _int("dim", dim)
    max_show = _count("max_show", max_show)
    descending = bool(descending)

    def cmp(actual, expected, *, actual_outputs=None, expected_outputs=None, inputs=None, rtol=None, atol=None):
        outputs = actual_outputs if actual_outputs is not None else {}
        if vals_name not in outputs:
            return False, (
                f"    compare_fn misconfigured: vals_name='{vals_name}' not found in actual outputs={list(outputs)}"
            )
        expected_vals = (expected_outputs or {}).get(vals_name)
        return native.topk_pair_compare(
            actual, expected, outputs[vals_name], expected_vals, str(vals_name), dim, descending, max_show
        )

    return _named(cmp, "topk_pair_compare")


def ratio_allclose(atol=None, rtol=None, max_error_ratio=0.005, max_show=10, valid_rows=None, valid_axis=0,
                   zero_tail=False):
    """Allclose that tolerates a bounded ratio of outliers.

    A point is bad when |actual - expected| > atol + rtol * |expected| (float32 math); the
    comparator passes iff the count of bad points is <= round(max_error_ratio * numel)
    (Python rounding: half to even). ``max_error_ratio=0`` is a strict allclose. NaN or Inf
    on either side always fails. ``atol`` / ``rtol`` of None use the run's tolerances
    (stored as ``cmp.atol_override`` / ``cmp.rtol_override``).

    ``valid_rows`` compares only the leading rows along ``valid_axis`` (0 rows passes; out of
    range fails); with ``zero_tail`` the dropped tail of the actual output must be all zeros.

        compare_fn = {"attn_out": ratio_allclose(atol=1e-4, rtol=1.0 / 128)}
    """
    _check_ratio(max_error_ratio)
    show = _count("max_show", max_show)
    rows = _int("valid_rows", valid_rows, optional=True)
    axis = _int("valid_axis", valid_axis)
    tail = bool(zero_tail)
    ratio = float(max_error_ratio)

    def cmp(actual, expected, *, actual_outputs=None, expected_outputs=None, inputs=None, rtol=1e-5, atol=1e-5):
        eff_atol = atol if cmp.atol_override is None else cmp.atol_override
        eff_rtol = rtol if cmp.rtol_override is None else cmp.rtol_override
        return native.ratio_allclose(
            actual, expected, float(eff_atol), float(eff_rtol), ratio, show, rows, axis, tail,
            str(eff_atol), str(eff_rtol),
        )

    cmp.atol_override = atol
    cmp.rtol_override = rtol
    return _named(
        cmp,
        f"ratio_allclose(atol={atol}, rtol={rtol}, max_error_ratio={max_error_ratio}, "
        f"valid_rows={valid_rows}, valid_axis={valid_axis}, zero_tail={zero_tail})",
    )


def ratio_reldiff(diff_thd=0.01, pct_thd=0.05, max_diff_hd=float("inf"), max_show=10, valid_rows=None,
                  valid_axis=0, zero_tail=False):
    """Relative-difference gate with a bad-point budget and a single-point cap.

    d = |a - e|; denom = max(|a|, |e|, 2**-14 / diff_thd) + 1e-9; rdiff = d if d < diff_thd
    else d / denom; a point is bad when rdiff > diff_thd. Passes iff the count of bad points
    is <= round(pct_thd * numel) and the worst bad rdiff is < max_diff_hd. Float32 math; NaN
    or Inf on either side always fails; the run's rtol / atol are not used. ``valid_rows``,
    ``valid_axis`` and ``zero_tail`` as in ``ratio_allclose``.
    """
    if not 0.0 < diff_thd:
        raise ValueError(f"diff_thd must be > 0, got {diff_thd}")
    if not 0.0 <= pct_thd <= 1.0:
        raise ValueError(f"pct_thd must be in [0, 1], got {pct_thd}")
    if not 0.0 < max_diff_hd:
        raise ValueError(f"max_diff_hd must be > 0, got {max_diff_hd}")
    show = _count("max_show", max_show)
    rows = _int("valid_rows", valid_rows, optional=True)
    axis = _int("valid_axis", valid_axis)
    tail = bool(zero_tail)
    texts = (str(diff_thd), str(pct_thd), str(max_diff_hd))
    numbers = (float(diff_thd), float(pct_thd), float(max_diff_hd))

    def cmp(actual, expected, *, actual_outputs=None, expected_outputs=None, inputs=None, rtol=None, atol=None):
        return native.ratio_reldiff(actual, expected, *numbers, show, rows, axis, tail, *texts)

    return _named(
        cmp,
        f"ratio_reldiff(diff_thd={diff_thd}, pct_thd={pct_thd}, max_diff_hd={max_diff_hd}, "
        f"valid_rows={valid_rows}, valid_axis={valid_axis}, zero_tail={zero_tail})",
    )


def mapped_pool_ratio_allclose(mapping_name, *, mapping_shape, block_size, leading_rank_axis=False,
                               pool_name="pool", atol=None, rtol=None, max_error_ratio=0.005):
    """Gate for a slot-mapped paged pool (KV-cache blocks): only allocator-mapped rows may change.

    Layout ``[blocks, block_size, ...]`` or, with ``leading_rank_axis``, ``[ranks, blocks,
    block_size, ...]``. The input ``mapping_name`` (integer dtype, shape ``mapping_shape``)
    holds physical row indices ``block * block_size + slot`` (-1 = unused; duplicates on one
    rank are an error). Unmapped rows must equal the golden exactly; mapped rows must be
    finite and pass ``ratio_allclose(atol, rtol, max_error_ratio)``.
    """
    _check_ratio(max_error_ratio)
    try:
        dims = mapping_shape if isinstance(mapping_shape, (tuple, list)) else (mapping_shape,)
        shape = tuple(operator.index(d) for d in dims if not isinstance(d, bool))
        if len(shape) != len(dims) or not shape or min(shape) <= 0:
            raise TypeError
    except TypeError:
        raise ValueError(f"mapping_shape must contain positive dimensions, got {mapping_shape}") from None
    try:
        if isinstance(block_size, bool) or operator.index(block_size) <= 0:
            raise TypeError
        block_size = operator.index(block_size)
    except TypeError:
        raise ValueError(f"block_size must be positive, got {block_size}") from None
    if leading_rank_axis and len(shape) < 2:
        raise ValueError(
            "leading_rank_axis requires mapping_shape to include a rank axis "
            f"and at least one mapped-item axis, got {mapping_shape}"
        )
    ranked = bool(leading_rank_axis)
    ratio = float(max_error_ratio)

    def cmp(actual, expected, *, actual_outputs=None, expected_outputs=None, inputs=None, rtol=1e-5, atol=1e-5):
        eff_atol = atol if cmp.atol_override is None else cmp.atol_override
        eff_rtol = rtol if cmp.rtol_override is None else cmp.rtol_override
        mapping = (inputs or {}).get(mapping_name)
        return native.mapped_pool_ratio_allclose(
            actual, expected, mapping, str(mapping_name), list(shape), block_size, ranked, str(pool_name),
            float(eff_atol), float(eff_rtol), ratio, str(eff_atol), str(eff_rtol),
        )

    cmp.atol_override = atol
    cmp.rtol_override = rtol
    return _named(
        cmp,
        f"mapped_pool_ratio_allclose(mapping={mapping_name}, shape={shape}, block_size={block_size}, "
        f"leading_rank_axis={leading_rank_axis}, atol={atol}, rtol={rtol}, max_error_ratio={max_error_ratio})",
    )


def error_distribution(diff_thds=(1e-3, 3e-3, 5e-3, 1e-2, 3e-2, 5e-2),
                       quantiles=(0.5, 0.9, 0.99, 0.999, 0.9999, 1.0), always_pass=True):
    """A measurement, not a gate: prints where an output's error lives, then passes.

    Prints rel-L2 and cosine similarity, the fraction of points over each of ``diff_thds``
    under ``ratio_reldiff``'s floored relative difference (with the worst), and percentiles
    of the relative difference, the absolute difference and |golden|. NaN / Inf in the
    actual output are reported; with ``always_pass=False`` they fail the output.
    """
    thds = tuple(float(t) for t in diff_thds)
    qs = tuple(float(q) for q in quantiles)
    for t in thds:
        if not (t > 0.0 and math.isfinite(t)):
            raise ValueError(f"diff_thds must be finite and > 0, got {t}")
    for q in qs:
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantiles must be in [0, 1], got {q}")
    keep_passing = bool(always_pass)

    def cmp(actual, expected, *, actual_outputs=None, expected_outputs=None, inputs=None, rtol=None, atol=None):
        ok, detail, report = native.error_distribution(actual, expected, list(thds), list(qs), keep_passing)
        print(report, end="", flush=True)
        return ok, detail

    return _named(cmp, f"error_distribution(diff_thds={diff_thds})")
