"""Every sample in samples/ passes under both commands (a *_broken.py sample must fail)."""

import pytest
import torch

from conftest import SAMPLES

# Samples that need a dtype the installed torch may lack (FP8 from torch 2.1).
NEEDS_FP8 = {"fp8_matmul.py"}
HAS_FP8 = hasattr(torch, "float8_e4m3fn")
PASSING = sorted(p.name for p in SAMPLES.glob("*.py")
                 if not p.name.endswith("_broken.py") and (HAS_FP8 or p.name not in NEEDS_FP8))
BROKEN = sorted(p.name for p in SAMPLES.glob("*_broken.py"))


@pytest.mark.parametrize("name", PASSING)
def test_sample_passes_under_the_host(host, name):
    proc = host(SAMPLES / name, "-p", "a2a3sim", "-d", "0", timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "[RUN] PASS (" in proc.stdout


@pytest.mark.parametrize("name", PASSING)
def test_sample_passes_under_python3(python3, name):
    proc = python3(SAMPLES / name, "-p", "a2a3sim", timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "[RUN] PASS (" in proc.stdout


@pytest.mark.parametrize("name", BROKEN)
def test_broken_sample_fails(host, name):
    proc = host(SAMPLES / name, "-p", "a2a3sim", timeout=600)
    assert proc.returncode == 1
    assert "Output(s) does not match golden" in proc.stdout
