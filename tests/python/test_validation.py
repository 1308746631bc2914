"""golden.validation: the gates' Python surface (factories, __name__, the compare_fn protocol),
their verdicts and reports against torch models of the harness rules, and their use in run()."""

import math
import re

import pytest
import torch

import pypto.language as pl
from golden import TensorSpec, run
from golden import validation as V

CTX = dict(actual_outputs={}, expected_outputs={}, inputs={}, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Models of the gates' rules (README "Validation gates"), written with torch ops, to check the
# native gates against.


def _nonfinite(a, e):
    counts = [int(torch.isnan(a).sum()), int(torch.isinf(a).sum()),
              int(torch.isnan(e).sum()), int(torch.isinf(e).sum())]
    if not any(counts):
        return ""
    return ("    illegal values in comparison: actual: NaN={} Inf={}; expected: NaN={} Inf={}").format(*counts)


def _unravel(flat, shape):
    idx = []
    for size in reversed(shape):
        idx.append(flat % size)
        flat //= size
    return tuple(reversed(idx))


def model_ratio_allclose(a, e, atol, rtol, ratio, max_show=10):
    a, e = a.to(torch.float32), e.to(torch.float32)
    if a.numel() == 0:
        return True, ""
    bad_values = _nonfinite(a, e)
    if bad_values:
        return False, bad_values
    diff = (a - e).abs()
    tol = atol + rtol * e.abs()
    bad = diff > tol
    count, numel = int(bad.sum()), a.numel()
    threshold = round(ratio * numel)
    if count <= threshold:
        return True, ""
    flat = diff.flatten()
    at = int(torch.nonzero(flat == flat.max())[0])
    idx = torch.nonzero(bad.flatten()).flatten()[:max_show].tolist()
    lines = [
        f"    [{i}] actual={a.flatten()[i].item():.8g}, expected={e.flatten()[i].item():.8g}, "
        f"diff={flat[i].item():.4g}, tol={tol.flatten()[i].item():.4g}"
        for i in idx
    ]
    return False, (
        f"    ratio_allclose fail: error_count={count}/{numel} (ratio={count / numel:.4%}, "
        f"allowed<={ratio:.4%}, threshold={threshold} pts)\n"
        f"    atol={atol} rtol={rtol}\n"
        f"    max abs diff={flat[at].item():.6g} at {_unravel(at, tuple(a.shape))} "
        f"(tol={tol.flatten()[at].item():.6g})\n"
        f"    first {len(idx)} mismatches:\n" + "\n".join(lines)
    )


def model_ratio_reldiff(a, e, diff_thd, pct_thd, max_diff_hd, max_show=10):
    a, e = a.to(torch.float32), e.to(torch.float32)
    if a.numel() == 0:
        return True, ""
    bad_values = _nonfinite(a, e)
    if bad_values:
        return False, bad_values
    diff = (a - e).abs()
    floor = torch.full_like(a, (1.0 / (1 << 14)) / diff_thd)
    denom = torch.maximum(torch.maximum(a.abs(), e.abs()), floor) + 1e-9
    rdiff = torch.where(diff < diff_thd, diff, diff / denom)
    bad = rdiff > diff_thd
    count, numel = int(bad.sum()), a.numel()
    threshold = round(pct_thd * numel)
    worst = float(rdiff[bad].max()) if count else 0.0
    if count <= threshold and worst < max_diff_hd:
        return True, ""
    reasons = []
    if count > threshold:
        reasons.append(f"error_count={count}/{numel} (ratio={count / numel:.4%}, allowed<={pct_thd:.4%}, "
                       f"threshold={threshold} pts)")
    if worst >= max_diff_hd:
        reasons.append(f"worst rdiff={worst:.4g} >= max_diff_hd={max_diff_hd:.4g}")
    idx = torch.nonzero(bad.flatten()).flatten()[:max_show].tolist()
    lines = [
        f"    [{i}] actual={a.flatten()[i].item():.8g}, expected={e.flatten()[i].item():.8g}, "
        f"abs_diff={diff.flatten()[i].item():.4g}, rdiff={rdiff.flatten()[i].item():.4g}"
        for i in idx
    ]
    return False, (
        f"    ratio_reldiff fail: {' AND '.join(reasons)}\n"
        f"    diff_thd={diff_thd} pct_thd={pct_thd} max_diff_hd={max_diff_hd}\n"
        f"    first {len(idx)} mismatches:\n" + "\n".join(lines)
    )


def model_topk_failures(a_idx, e_idx, a_vals, descending=True):
    """Positions (row, pos) along the last dim whose idx mismatch breaks the a_vals order (k >= 2)."""
    mism = a_idx != e_idx
    v = a_vals.to(torch.float32)
    pair = (v[:, :-1] >= v[:, 1:]) if descending else (v[:, :-1] <= v[:, 1:])
    ok = torch.ones_like(mism)
    ok[:, 1:] &= pair
    ok[:, :-1] &= pair
    return [tuple(p) for p in torch.nonzero(mism & ~ok).tolist()]


def perturbed(shape, dtype, seed, frac=0.01, scale=1e-3, nonfinite=None):
    g = torch.Generator().manual_seed(seed)
    e = torch.randn(shape, generator=g).to(dtype)
    a = e.clone()
    n = e.numel()
    picks = torch.randperm(n, generator=g)[: max(1, int(frac * n))]
    flat = a.view(-1)
    flat[picks] = (flat[picks].to(torch.float32) + scale * torch.randn(len(picks), generator=g)).to(dtype)
    if nonfinite is not None:
        flat[picks[0]] = nonfinite
    return a, e


# ---------------------------------------------------------------------------------------------
# Factories: names, checks, attributes.


def test_names_follow_the_harness():
    assert V.topk_pair_compare("v").__name__ == "topk_pair_compare"
    assert V.ratio_allclose().__name__ == (
        "ratio_allclose(atol=None, rtol=None, max_error_ratio=0.005, valid_rows=None, valid_axis=0, zero_tail=False)"
    )
    assert V.ratio_allclose(atol=1e-4, rtol=1 / 128, max_error_ratio=0, valid_rows=7, valid_axis=1,
                            zero_tail=True).__name__ == (
        "ratio_allclose(atol=0.0001, rtol=0.0078125, max_error_ratio=0, valid_rows=7, valid_axis=1, zero_tail=True)"
    )
    assert V.ratio_reldiff().__name__ == (
        "ratio_reldiff(diff_thd=0.01, pct_thd=0.05, max_diff_hd=inf, valid_rows=None, valid_axis=0, zero_tail=False)"
    )
    assert V.mapped_pool_ratio_allclose("slot_mapping", mapping_shape=(2, 8), block_size=16,
                                        leading_rank_axis=True).__name__ == (
        "mapped_pool_ratio_allclose(mapping=slot_mapping, shape=(2, 8), block_size=16, leading_rank_axis=True, "
        "atol=None, rtol=None, max_error_ratio=0.005)"
    )
    assert V.error_distribution().__name__ == (
        "error_distribution(diff_thds=(0.001, 0.003, 0.005, 0.01, 0.03, 0.05))"
    )


def test_exported_names():
    assert sorted(V.__all__) == ["error_distribution", "mapped_pool_ratio_allclose", "ratio_allclose",
                                 "ratio_reldiff", "topk_pair_compare", "validate_golden"]


@pytest.mark.parametrize("call, message", [
    (lambda: V.ratio_allclose(max_error_ratio=1.5), "max_error_ratio must be in [0, 1], got 1.5"),
    (lambda: V.ratio_allclose(max_error_ratio=-0.1), "max_error_ratio must be in [0, 1], got -0.1"),
    (lambda: V.ratio_allclose(max_error_ratio=math.nan), "max_error_ratio must be in [0, 1], got nan"),
    (lambda: V.ratio_reldiff(diff_thd=0), "diff_thd must be > 0, got 0"),
    (lambda: V.ratio_reldiff(pct_thd=2), "pct_thd must be in [0, 1], got 2"),
    (lambda: V.ratio_reldiff(max_diff_hd=-1.0), "max_diff_hd must be > 0, got -1.0"),
    (lambda: V.mapped_pool_ratio_allclose("m", mapping_shape=(4, 0), block_size=2),
     "mapping_shape must contain positive dimensions, got (4, 0)"),
    (lambda: V.mapped_pool_ratio_allclose("m", mapping_shape=(), block_size=2),
     "mapping_shape must contain positive dimensions, got ()"),
    (lambda: V.mapped_pool_ratio_allclose("m", mapping_shape=(4,), block_size=0), "block_size must be positive, got 0"),
    (lambda: V.mapped_pool_ratio_allclose("m", mapping_shape=(4,), block_size=2, leading_rank_axis=True),
     "leading_rank_axis requires mapping_shape to include a rank axis and at least one mapped-item axis, got (4,)"),
    (lambda: V.mapped_pool_ratio_allclose("m", mapping_shape=(4,), block_size=2, max_error_ratio=2),
     "max_error_ratio must be in [0, 1], got 2"),
    (lambda: V.error_distribution(quantiles=(0.5, 1.5)), "quantiles must be in [0, 1], got 1.5"),
    (lambda: V.error_distribution(diff_thds=(0.0,)), "diff_thds must be finite and > 0, got 0.0"),
    (lambda: V.topk_pair_compare("v", max_show=-1), "max_show must be >= 0, got -1"),
])
def test_factory_errors(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_factory_type_errors():
    with pytest.raises(TypeError, match="valid_rows must be an int or None, got float"):
        V.ratio_allclose(valid_rows=2.0)
    with pytest.raises(TypeError, match="dim must be an int, got str"):
        V.topk_pair_compare("v", dim="0")


def test_tolerance_overrides_and_the_runs_tolerances():
    a, e = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1])
    gate = V.ratio_allclose(max_error_ratio=0)
    assert gate.atol_override is None and gate.rtol_override is None
    assert gate(a, e, **{**CTX, "atol": 0.2})[0]  # the run's atol
    assert not gate(a, e, **CTX)[0]
    gate.atol_override = 0.2
    ok, _ = gate(a, e, **CTX)
    assert ok
    strict = V.ratio_allclose(atol=0.01, rtol=0, max_error_ratio=0)
    ok, detail = strict(a, e, **{**CTX, "atol": 1.0})
    assert not ok and "    atol=0.01 rtol=0\n" in detail


def test_comparators_follow_the_protocol():
    a = torch.zeros(4)
    for gate in (V.ratio_allclose(), V.ratio_reldiff(), V.error_distribution(),
                 V.topk_pair_compare("v"), V.mapped_pool_ratio_allclose("m", mapping_shape=(1,), block_size=4)):
        result = gate(a, a, actual_outputs={"v": a}, expected_outputs={"v": a}, inputs={"m": torch.tensor([-1])},
                      rtol=1e-5, atol=1e-5)
        assert isinstance(result, tuple) and len(result) == 2
        assert isinstance(result[0], bool) and isinstance(result[1], str)


# ---------------------------------------------------------------------------------------------
# Verdicts and reports against the models.


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize("shape, seed", [((1000,), 1), ((37, 53), 2), ((3, 4, 129), 3), ((70000,), 4)])
@pytest.mark.parametrize("ratio", [0.0, 0.005, 0.02])
def test_ratio_allclose_matches_the_model(dtype, shape, seed, ratio):
    a, e = perturbed(shape, dtype, seed)
    for atol, rtol in ((1e-5, 1e-5), (1e-4, 1.0 / 128)):
        got = V.ratio_allclose(atol=atol, rtol=rtol, max_error_ratio=ratio)(a, e, **CTX)
        assert got == model_ratio_allclose(a, e, atol, rtol, ratio)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape, seed", [((1000,), 5), ((37, 53), 6), ((70000,), 7)])
@pytest.mark.parametrize("pct, cap", [(0.0, math.inf), (0.005, math.inf), (0.05, 0.5)])
def test_ratio_reldiff_matches_the_model(dtype, shape, seed, pct, cap):
    a, e = perturbed(shape, dtype, seed, frac=0.02, scale=0.05)
    for thd in (0.001, 0.01):
        got = V.ratio_reldiff(diff_thd=thd, pct_thd=pct, max_diff_hd=cap)(a, e, **CTX)
        assert got == model_ratio_reldiff(a, e, thd, pct, cap)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_values_fail_on_either_side(bad):
    for gate, model in ((V.ratio_allclose(max_error_ratio=1), lambda a, e: model_ratio_allclose(a, e, 1e-5, 1e-5, 1)),
                        (V.ratio_reldiff(pct_thd=1), lambda a, e: model_ratio_reldiff(a, e, 0.01, 1, math.inf))):
        a, e = perturbed((100,), torch.float32, 8, nonfinite=bad)
        got = gate(a, e, **CTX)
        assert not got[0] and got == model(a, e)
        got = gate(e, a, **CTX)
        assert not got[0] and got == model(e, a)


def test_ratio_gates_at_the_exact_allowed_count():
    e = torch.zeros(300)
    a = e.clone()
    a[:2] = 1.0  # round(0.005 * 300) = round(1.5) = 2 allowed
    assert V.ratio_allclose(atol=0, rtol=0)(a, e, **CTX) == (True, "")
    a[2] = 1.0
    ok, detail = V.ratio_allclose(atol=0, rtol=0)(a, e, **CTX)
    assert not ok and detail.startswith(
        "    ratio_allclose fail: error_count=3/300 (ratio=1.0000%, allowed<=0.5000%, threshold=2 pts)\n")
    e5, a5 = torch.ones(500), torch.ones(500)
    a5[:2] = 2.0  # round(0.005 * 500) = round(2.5) = 2 allowed
    assert V.ratio_reldiff(pct_thd=0.005)(a5, e5, **CTX)[0]
    a5[2] = 2.0
    assert not V.ratio_reldiff(pct_thd=0.005)(a5, e5, **CTX)[0]


def test_valid_prefix():
    e = torch.zeros(2, 6, 3)
    a = e.clone()
    a[:, 4:] = math.nan
    gate = V.ratio_allclose(valid_rows=4, valid_axis=1)
    assert gate(a, e, **CTX) == (True, "")
    assert V.ratio_allclose(valid_rows=4, valid_axis=1, zero_tail=True)(a, e, **CTX) == (
        False, "    inactive tail contains 12 nonzero values")
    assert V.ratio_reldiff(valid_rows=0)(a, e, **CTX) == (True, "")
    assert V.ratio_reldiff(valid_rows=3)(a, e, **CTX) == (False, "    valid_rows=3 out of range for axis 0 of length 2")
    assert V.ratio_allclose(valid_rows=1, valid_axis=-3)(a, e, **CTX) == (
        False, "    illegal values in comparison: actual: NaN=6 Inf=0; expected: NaN=0 Inf=0")
    assert V.ratio_allclose(valid_rows=1, valid_axis=3)(a, e, **CTX) == (
        False, "    valid_axis=3 out of range for shape (2, 6, 3)")
    a[1, 2, 1] = 1.0
    ok, detail = gate(a, e, **CTX)
    # Indices are those of the compared [2, 4, 3] prefix.
    assert "    max abs diff=1 at (1, 2, 1) (tol=1e-05)\n" in detail and "    [19] actual=1," in detail


def test_empty_outputs_pass_every_gate():
    z = torch.zeros(0, 4)
    assert V.ratio_allclose(max_error_ratio=0)(z, z, **CTX) == (True, "")
    assert V.ratio_reldiff(pct_thd=0)(z, z, **CTX) == (True, "")
    assert V.topk_pair_compare("v")(z.long(), z.long(), **{**CTX, "actual_outputs": {"v": z}}) == (True, "")


def test_shape_mismatch_fails_without_broadcasting():
    assert V.ratio_allclose()(torch.zeros(4, 1), torch.zeros(4), **CTX) == (
        False, "    shape mismatch: actual (4, 1) vs expected (4,)")
    assert V.ratio_reldiff()(torch.zeros(1), torch.zeros(3), **CTX) == (
        False, "    shape mismatch: actual (1,) vs expected (3,)")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("descending", [True, False])
def test_topk_matches_the_model(seed, descending):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randint(0, 6, (64, 40), generator=g).to(torch.float32)  # many ties
    vals, idx = torch.topk(scores, 8, dim=-1, largest=descending, sorted=True)
    a_idx = idx.clone()
    # Swap tied neighbours (legal), and plant real misses (illegal).
    for r in range(0, 64, 3):
        for p in range(7):
            if vals[r, p] == vals[r, p + 1]:
                a_idx[r, p], a_idx[r, p + 1] = idx[r, p + 1], idx[r, p]
                break
    a_vals = vals.clone()
    for r in range(1, 64, 9):
        a_idx[r, 3] = 39
        a_vals[r, 3] = a_vals[r, 7] - (1 if descending else -1)
    gate = V.topk_pair_compare("vals", descending=descending, max_show=4)
    ok, detail = gate(a_idx, idx, actual_outputs={"vals": a_vals}, expected_outputs={"vals": vals}, inputs={},
                      rtol=0, atol=0)
    failures = model_topk_failures(a_idx, idx, a_vals, descending)
    assert ok == (not failures)
    if failures:
        order = "descending" if descending else "ascending"
        assert detail.startswith(
            f"    top-k idx mismatch via 'vals' (dim=-1 order={order}): {len(failures)} position(s)")
        shown = re.findall(r"^      \[(\d+),(\d+)\]", detail, re.M)
        assert [tuple(map(int, s)) for s in shown] == failures[:4]
        assert detail.endswith(f"      ... and {len(failures) - 4} more") == (len(failures) > 4)


def test_topk_misconfigured_and_k1():
    gate = V.topk_pair_compare("scores")
    i = torch.tensor([[1], [2]])
    assert gate(i, i, actual_outputs={"idx": i, "vals": i}, expected_outputs={}, inputs={}, rtol=0, atol=0) == (
        False, "    compare_fn misconfigured: vals_name='scores' not found in actual outputs=['idx', 'vals']")
    # k = 1: a mismatch passes only on a tie with the expected value.
    a = torch.tensor([[3], [2]])
    tie = {"actual_outputs": {"scores": torch.tensor([[0.5], [0.1]])},
           "expected_outputs": {"scores": torch.tensor([[0.5], [0.1]])}}
    assert gate(a, i, **tie, inputs={}, rtol=0, atol=0) == (True, "")
    worse = {"actual_outputs": {"scores": torch.tensor([[0.4], [0.1]])},
             "expected_outputs": {"scores": torch.tensor([[0.5], [0.1]])}}
    assert gate(a, i, **worse, inputs={}, rtol=0, atol=0) == (False, (
        "    top-k idx mismatch via 'scores' (dim=-1 order=descending): 1 position(s) where k=1 and a_vals differs "
        "from the expected value at the mismatch\n"
        "      [0,0] actual_idx=3 expected_idx=1 actual_score=0.4 expected_score=0.5"))


def test_mapped_pool_reads_the_mapping_from_inputs():
    gate = V.mapped_pool_ratio_allclose("slots", mapping_shape=[3], block_size=2, pool_name="kv",
                                        atol=0, rtol=0, max_error_ratio=0)
    assert gate.__name__.startswith("mapped_pool_ratio_allclose(mapping=slots, shape=(3,), block_size=2,")
    e = torch.zeros(3, 2, 4)
    a = e.clone()
    a[2, 1] = 1.0  # physical row 5
    ctx = {**CTX, "inputs": {"slots": torch.tensor([5, -1, 0], dtype=torch.int32)}}
    assert gate(a, a.clone(), **ctx) == (True, "")
    ok, detail = gate(a, e, **ctx)
    assert not ok and detail.startswith(
        "    mapped rows in kv from 'slots':\n    ratio_allclose fail: error_count=4/8 ")
    assert gate(a, e, **CTX) == (False, "    compare_fn misconfigured: missing input 'slots'")
    ctx["inputs"]["slots"] = torch.tensor([-1, -1, 0])
    assert gate(a, e, **ctx) == (False, "    unmapped physical kv row changed: row=5 changed_values=4 mapping='slots'")


def test_error_distribution_prints_its_report(capsys):
    a, e = perturbed((4000,), torch.float32, 11, frac=0.3, scale=0.02)
    gate = V.error_distribution(quantiles=(0.5, 0.9, 0.99, 1.0))
    assert gate(a, e, **CTX) == (True, "")
    out = capsys.readouterr().out
    from_model = _model_error_distribution(a, e, quantiles=(0.5, 0.9, 0.99, 1.0))
    # The cosine and rel-L2 sums accumulate in double (torch: float32): compare them loosely.
    got_head, *got_rest = out.splitlines()
    want_head, *want_rest = from_model.splitlines()
    assert got_rest == want_rest
    got_nums = [float(x) for x in re.findall(r"[-\d.]+(?=%|  numel| )", got_head)]
    want_nums = [float(x) for x in re.findall(r"[-\d.]+(?=%|  numel| )", want_head)]
    assert got_nums == pytest.approx(want_nums, abs=2e-4)
    a[3] = math.inf
    assert V.error_distribution(always_pass=False)(a, e, **CTX) == (False, "    illegal values in actual: NaN=0 Inf=1")
    assert capsys.readouterr().out == "    illegal values in actual: NaN=0 Inf=1\n"


def _model_error_distribution(a, e, diff_thds=(1e-3, 3e-3, 5e-3, 1e-2, 3e-2, 5e-2), quantiles=(0.5,)):
    diff = (a - e).abs()
    rel = (diff.norm() / e.norm().clamp_min(1e-12)).item()
    cos = torch.nn.functional.cosine_similarity(a.flatten(), e.flatten(), dim=0).item()
    out = [f"rel-L2 = {rel:.4%}  cosine = {cos:.7f}  numel={a.numel()}"]
    for t in diff_thds:
        den = torch.maximum(a.abs(), e.abs()).clamp_min((1.0 / (1 << 14)) / t) + 1e-9
        rd = torch.where(diff < t, diff, diff / den)
        n = int((rd > t).sum())
        worst = float(rd[rd > t].max()) if n else 0.0
        out.append(f"  diff_thd={t:.0e}  frac>thd={n / a.numel():.4%}  worst={worst:.3g}")
    qs = torch.tensor(list(quantiles))

    def pct(label, flat):
        flat = flat[torch.isfinite(flat)]
        values = torch.quantile(flat, qs).tolist()
        out.append(f"  {label}: " + "  ".join(f"p{q * 100:g}={v:.3g}" for q, v in zip(quantiles, values)))

    pct("rel-diff percentiles", (diff / torch.maximum(a.abs(), e.abs()).clamp_min(1e-6)).flatten())
    pct("abs-diff percentiles", diff.flatten())
    out.append(f"  |golden| mean={e.abs().mean():.4g}")
    pct("|golden| percentiles", e.abs().flatten())
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# In golden.run: gates and Python callables side by side, one report for every failing output.

R, K = 16, 8


@pl.jit
def copy_outputs(
    vi: pl.Tensor[[R, K], pl.FP32],
    ii: pl.Tensor[[R, K], pl.INT32],
    slots: pl.Tensor[[4], pl.INT32],
    vals: pl.Out[pl.Tensor[[R, K], pl.FP32]],
    idx: pl.Out[pl.Tensor[[R, K], pl.INT32]],
    y: pl.Out[pl.Tensor[[R, K], pl.FP32]],
):
    for r in pl.parallel(0, R, 8):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
            vals[r : r + 8, :] = pl.add(vi[r : r + 8, :], 0.0)
            idx[r : r + 8, :] = pl.add(ii[r : r + 8, :], 0)
            y[r : r + 8, :] = pl.add(vi[r : r + 8, :], 1.0)
    return y


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


def run_copy(golden_fn, compare_fn):
    scores = torch.tensor([[8.0, 7.0, 7.0, 5.0, 4.0, 4.0, 4.0, 1.0]] * R)
    order = torch.tensor([[0, 2, 1, 3, 6, 5, 4, 7]] * R, dtype=torch.int32)  # ties swapped vs the golden's
    specs = [
        TensorSpec("vi", [R, K], torch.float32, init_value=scores),
        TensorSpec("ii", [R, K], torch.int32, init_value=order),
        TensorSpec("slots", [4], torch.int32, init_value=torch.tensor([1, -1, 3, 0], dtype=torch.int32)),
        TensorSpec("vals", [R, K], torch.float32),
        TensorSpec("idx", [R, K], torch.int32),
        TensorSpec("y", [R, K], torch.float32),
    ]
    return run(fn=copy_outputs, specs=specs, golden_fn=golden_fn, compare_fn=compare_fn)


def golden_sorted(v):
    v["vals"][:] = v["vi"]
    v["idx"][:] = torch.arange(K, dtype=torch.int32)
    v["y"][:] = v["vi"] + 1.0
    v["y"][0, 0] += 0.5  # one point off


def test_gates_in_a_run(capsys):
    result = run_copy(golden_sorted, {
        "idx": V.topk_pair_compare("vals"),
        "y": V.ratio_allclose(atol=1e-5, rtol=1e-5, max_error_ratio=0.01),
    })
    assert result.passed, result.error
    out = capsys.readouterr().out
    assert "[RUN]   'idx' PASS  shape=(16, 8) dtype=torch.int32 (topk_pair_compare)" in out
    assert ("[RUN]   'y' PASS  shape=(16, 8) dtype=torch.float32 (ratio_allclose(atol=1e-05, rtol=1e-05, "
            "max_error_ratio=0.01, valid_rows=None, valid_axis=0, zero_tail=False))") in out


def test_every_failing_output_is_reported(capsys):
    def picky(actual, expected, *, actual_outputs, expected_outputs, inputs, rtol, atol):
        assert sorted(inputs) == ["ii", "slots", "vi"] and sorted(actual_outputs) == ["idx", "vals", "y"]
        return False, "    picky says no"

    result = run_copy(golden_sorted, {
        "idx": V.topk_pair_compare("missing"),
        "vals": picky,
        "y": V.ratio_reldiff(pct_thd=0),
    })
    assert not result.passed
    assert result.error.startswith("Output(s) does not match golden: ['vals', 'idx', 'y']\n")
    assert "  'vals' FAIL (picky)  shape=(16, 8) dtype=torch.float32\n    picky says no\n" in result.error
    assert ("  'idx' FAIL (topk_pair_compare)  shape=(16, 8) dtype=torch.int32\n"
            "    compare_fn misconfigured: vals_name='missing' not found in actual outputs=['vals', 'idx', 'y']\n"
            ) in result.error
    assert ("  'y' FAIL (ratio_reldiff(diff_thd=0.01, pct_thd=0, max_diff_hd=inf, valid_rows=None, valid_axis=0, "
            "zero_tail=False))  shape=(16, 8) dtype=torch.float32\n"
            "    ratio_reldiff fail: error_count=1/128 (ratio=0.7812%, allowed<=0.0000%, threshold=0 pts)\n"
            ) in result.error
    # Without a gate the tie swaps fail the default allclose.
    plain = run_copy(golden_sorted, None)
    assert plain.error.startswith("Output(s) does not match golden: ['idx', 'y']\n")


def test_error_distribution_and_mapped_pool_in_a_run(capsys):
    result = run_copy(golden_sorted, {
        "vals": V.error_distribution(diff_thds=(1e-2,), quantiles=(1.0,)),
        "y": V.mapped_pool_ratio_allclose("slots", mapping_shape=(4,), block_size=8, atol=0.6),
        "idx": V.topk_pair_compare("vals"),
    })
    assert result.passed, result.error
    out = capsys.readouterr().out.splitlines()
    at = out.index("rel-L2 = 0.0000%  cosine = 1.0000000  numel=128")
    assert out[at + 1] == "  diff_thd=1e-02  frac>thd=0.0000%  worst=0"
    assert out[at + 6].startswith("[RUN]   'vals' PASS  shape=(16, 8) dtype=torch.float32 (error_distribution(")
