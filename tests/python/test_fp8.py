"""The 8-bit float dtypes end to end in-process: pl names, signatures, specs, a kernel cast
with the hardware's saturation, the FP32 comparison of FP8 outputs, snapshots, and the one
error a torch without the dtype gives."""

import textwrap

import pytest
import torch

if not hasattr(torch, "float8_e4m3fn"):
    pytest.skip("torch %s has no FP8 dtypes (torch >= 2.1 has them)" % torch.__version__, allow_module_level=True)

import golden
import pypto.language as pl
from pypto.jit import KernelCompileError
from pypto.language import dtypes

from test_frontend import first_line, line_of, load

CAST_KERNEL = """\
import pypto.language as pl


@pl.jit
def quant(x: pl.Tensor[[64, 32], pl.FP32], q: pl.Out[pl.Tensor[[64, 32], pl.{dtype}]]):
    for r in pl.parallel(0, 64, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="quant"):
            q[r:r + 16, :] = pl.cast(x[r:r + 16, :], pl.{dtype}, mode="rint")
    return q
"""


def test_pl_names_and_torch_dtypes():
    assert [str(d) for d in (pl.FP8E4M3FN, pl.FP8E5M2, pl.FP8E8M0)] == ["fp8e4m3fn", "fp8e5m2", "fp8e8m0"]
    assert pl.FP8E4M3FN.to_torch() is torch.float8_e4m3fn
    assert pl.FP8E5M2.to_torch() is torch.float8_e5m2
    assert dtypes.from_torch(torch.float8_e4m3fn) is pl.FP8E4M3FN
    assert pl.FP8E4M3FN.get_byte() == 1 and pl.FP8E4M3FN.is_float
    assert pl.FP8E4M3FN.missing_from_torch() == ""
    if not hasattr(torch, "float8_e8m0fnu"):
        assert pl.FP8E8M0.missing_from_torch() == (
            "pl.FP8E8M0 needs torch.float8_e8m0fnu, which torch %s does not have (torch >= 2.7 has it)"
            % torch.__version__)


@pytest.mark.parametrize("dtype, torch_dtype, max_value", [("FP8E4M3FN", torch.float8_e4m3fn, 448.0),
                                                           ("FP8E5M2", torch.float8_e5m2, 57344.0)])
def test_kernel_cast_to_fp8_saturates_and_validates_in_fp32(tmp_path, builds, dtype, torch_dtype, max_value):
    mod, _ = load(tmp_path, CAST_KERNEL.format(dtype=dtype))
    x = torch.randn(64, 32) * max_value / 2
    x[0, :4] = torch.tensor([max_value * 3, -max_value * 3, max_value, 1.0625])
    specs = [golden.TensorSpec("x", [64, 32], torch.float32, init_value=x),
             golden.TensorSpec("q", [64, 32], torch_dtype)]

    def golden_fn(values):
        values["q"][:] = values["x"].clamp(-max_value, max_value).to(torch_dtype)

    result = golden.run(mod.quant, specs, golden_fn, config={"platform": "a2a3sim"}, rtol=0, atol=0,
                        save_data=True)
    assert result.passed, result.error
    # The .pt snapshots hold the FP8 golden as torch.save would.
    saved = torch.load(f"{result.work_dir}/data/out/q.pt", weights_only=True)
    assert saved.dtype is torch_dtype
    assert saved[0, :3].float().tolist() == [max_value, -max_value, max_value]
    replay = golden.run(mod.quant, specs, None, config={"platform": "a2a3sim"}, rtol=0, atol=0,
                        golden_data=f"{result.work_dir}/data")
    assert replay.passed, replay.error


def test_a_wrong_fp8_output_is_reported_with_its_values(tmp_path, builds):
    mod, _ = load(tmp_path, CAST_KERNEL.format(dtype="FP8E4M3FN"))
    x = torch.ones(64, 32)
    specs = [golden.TensorSpec("x", [64, 32], torch.float32, init_value=x),
             golden.TensorSpec("q", [64, 32], torch.float8_e4m3fn)]

    def golden_fn(values):
        values["q"][:] = (values["x"] * 2).to(torch.float8_e4m3fn)

    result = golden.run(mod.quant, specs, golden_fn, config={"platform": "a2a3sim"}, rtol=0, atol=0.5)
    assert not result.passed
    assert "'q' FAIL  shape=(64, 32) dtype=torch.float8_e4m3fn" in result.error
    assert "[0] actual=1.0, expected=2.0" in result.error


def test_fp8_input_spec_with_randn_draws_in_fp32_and_rounds(tmp_path, builds):
    mod, _ = load(tmp_path, """\
        import pypto.language as pl


        @pl.jit
        def widen(w: pl.Tensor[[32, 16], pl.FP8E5M2], y: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="widen"):
                y[:, :] = pl.cast(w[:, :], pl.FP32)
            return y
        """)
    specs = [golden.TensorSpec("w", [32, 16], torch.float8_e5m2, init_value=torch.randn),
             golden.TensorSpec("y", [32, 16], torch.float32)]
    seen = {}

    def golden_fn(values):
        seen["w"] = values["w"].clone()
        values["y"][:] = values["w"].float()

    torch.manual_seed(3)
    result = golden.run(mod.widen, specs, golden_fn, config={"platform": "a2a3sim"}, rtol=0, atol=0)
    assert result.passed, result.error
    torch.manual_seed(3)
    assert torch.equal(seen["w"].view(torch.uint8), torch.randn(32, 16).to(torch.float8_e5m2).view(torch.uint8))


def test_a_dtype_the_installed_torch_lacks_is_one_compile_error(tmp_path, builds, monkeypatch):
    monkeypatch.setattr(pl.FP8E8M0, "_torch_name", "float8_e8m0fnu_not_in_this_torch")
    src = textwrap.dedent("""\
        import pypto.language as pl


        @pl.jit
        def k(x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP8E8M0]]):
            return y
        """)
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(8))
    assert first_line(info.value) == (
        "%s:%d: parameter 'y': pl.FP8E8M0 needs torch.float8_e8m0fnu_not_in_this_torch, which torch %s "
        "does not have (torch >= 2.7 has it)" % (path, line_of(src, "def k"), torch.__version__))
