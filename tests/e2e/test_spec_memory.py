"""What a model script's weights cost a run in memory. Zero-initialised specs (no init_value, 0,
0.0, False, torch.zeros) hold exact zeros and take no memory until something writes them (a
run used to touch every page of them), and the memory budget does not count such In tensors;
-0.0 keeps its sign. A callable's tensor that the script keeps is shared, not copied, and
never written."""

import re

import pytest

from conftest import clean_env

SCRIPT = '''
import resource
import torch
import pypto.language as pl
from golden import TensorSpec, exit_on_failure, run

R = C = {side}  # the weight: {side} x {side} fp32
{prelude}


@pl.jit
def corner(w: pl.Tensor[[R, C], pl.FP32], n: pl.Tensor[[1024, 1024], pl.FP32],
           y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    for r in pl.parallel(0, 16, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="corner"):
            y[r : r + 16, :] = pl.add(w[r : r + 16, 0:64], n[r : r + 16, 0:64])
    return y


def golden(values):
    assert bool((values["w"][:16, :64] == {expected}).all()), "w is not {expected}"
    assert bool(torch.signbit(values["n"]).all()), "n lost the sign of -0.0"
    values["y"][:] = values["w"][:16, :64] + values["n"][:16, :64]


if __name__ == "__main__":
    result = run(
        fn=corner,
        specs=[
            TensorSpec("w", [R, C], torch.float32{init}),
            TensorSpec("n", [1024, 1024], torch.float32, init_value=-0.0),
            TensorSpec("y", [16, 64], torch.float32),
        ],
        golden_fn=golden,
        config={{"platform": "a2a3sim", "device_id": 0}},
        rtol=0,
        atol=0,
    )
    print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    {check}
    exit_on_failure(result)
'''


def run_script(host, tmp_path, side, init, prelude="", expected=0, check="", **env):
    script = tmp_path / f"weights_{side}.py"
    script.write_text(SCRIPT.format(side=side, init=init, prelude=prelude, expected=expected, check=check))
    return host(script, "-p", "a2a3sim", env=clean_env(tmp_path, **env))


def peak_rss_mib(host, tmp_path, side, init, **kwargs):
    proc = run_script(host, tmp_path, side, init, **kwargs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[RUN]   'y' PASS  shape=(16, 64) dtype=torch.float32" in proc.stdout
    return int(re.search(r"peak_rss_kib (\d+)", proc.stdout).group(1)) / 1024


@pytest.mark.parametrize("init", ["", ", init_value=None", ", init_value=0", ", init_value=0.0",
                                  ", init_value=False", ", init_value=torch.zeros"])
def test_a_zero_weight_takes_no_memory_until_written(host, tmp_path, init):
    small = peak_rss_mib(host, tmp_path, 64, init)
    # 1 GiB of zeros, 16 x 64 of it read; within a budget that counts only n and y.
    big = peak_rss_mib(host, tmp_path, 16384, init, PYPTO_GOLDEN_MEMORY_LIMIT="512M")
    assert big - small < 256, f"a 1 GiB zero weight raised the peak from {small:.0f} to {big:.0f} MiB"


def test_a_weight_of_ones_is_held_and_counted(host, tmp_path):
    proc = run_script(host, tmp_path, 16384, ", init_value=1.0", PYPTO_GOLDEN_MEMORY_LIMIT="512M")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == (
        "not enough memory for this run: its tensors need at least 1.0 GiB (1.0 GiB of In tensors, held once, "
        "and 4.0 KiB of Out / InOut tensors, held twice: the kernel's result and the golden's) but 512.0 MiB is "
        "available (PYPTO_GOLDEN_MEMORY_LIMIT); the run was not started")


def test_a_callables_tensor_the_script_keeps_is_shared_and_never_written(host, tmp_path):
    kept = {"init": ", init_value=lambda: W", "prelude": "W = torch.ones(R, C)", "expected": 1,
            "check": 'assert bool(W.eq(1).all()), "the run wrote into the script\'s tensor"'}
    small = peak_rss_mib(host, tmp_path, 64, **kept)
    big = peak_rss_mib(host, tmp_path, 8192, **kept)  # 256 MiB the script holds, and no copy
    assert 192 <= big - small < 256 + 128, f"the peak rose from {small:.0f} to {big:.0f} MiB"
