"""INT8 matmuls are exact whichever gemm computes them: oneDNN's integer gemm where the CPU
has AVX-512 VNNI, the FP32 chunks elsewhere. Capping oneDNN at AVX2, whose int8 kernels
saturate sums of product pairs in 16 bits, must fall back rather than give wrong integers."""

import pytest

from conftest import clean_env

SCRIPT = '''
import torch
import pypto.language as pl
from golden import TensorSpec, exit_on_failure, run

M, K, N = 32, 256, 48


def x_init():
    x = torch.randint(-128, 128, (M, K), generator=torch.Generator().manual_seed(1), dtype=torch.int8)
    x[:8] = 127  # each pair of products with w's -128 columns overflows 16 bits
    return x


def w_init():
    w = torch.randint(-128, 128, (K, N), generator=torch.Generator().manual_seed(2), dtype=torch.int8)
    w[:, :4] = -128
    return w


@pl.jit
def int8_product(x: pl.Tensor[[M, K], pl.INT8], w: pl.Tensor[[K, N], pl.INT8],
                 y: pl.Out[pl.Tensor[[M, N], pl.INT32]]):
    for r in pl.parallel(0, M, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
            y[r : r + 16, :] = pl.matmul(x[r : r + 16, :], w, out_dtype=pl.INT32)
    return y


def golden(values):
    values["y"][:] = (values["x"].long() @ values["w"].long()).int()


if __name__ == "__main__":
    result = run(
        fn=int8_product,
        specs=[
            TensorSpec("x", [M, K], torch.int8, init_value=x_init),
            TensorSpec("w", [K, N], torch.int8, init_value=w_init),
            TensorSpec("y", [M, N], torch.int32),
        ],
        golden_fn=golden,
        config={"platform": "a2a3sim", "device_id": 0},
        rtol=0,
        atol=0,
    )
    exit_on_failure(result)
'''


@pytest.mark.parametrize("isa", [None, "AVX2"])
def test_int8_matmul_is_exact(host, tmp_path, isa):
    script = tmp_path / "int8_product.py"
    script.write_text(SCRIPT)
    extra = {"ONEDNN_MAX_CPU_ISA": isa} if isa else {}
    proc = host(script, "-p", "a2a3sim", env=clean_env(tmp_path, **extra))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'y' PASS  shape=(32, 48) dtype=torch.int32" in proc.stdout
    assert proc.stderr == ""  # no warning of torch's falling back from a failed integer gemm
