"""The samples, run for real by pypto-golden and by python3 through the extension module."""

import re

import pytest

from conftest import SAMPLES, clean_env, stage_lines

PASS_STAGES = [
    "[RUN] compile ...",
    "[RUN] compile done",
    "[RUN] generate inputs ...",
    "[RUN] generate inputs done",
    "[RUN] compute golden ...",
    "[RUN] compute golden done",
    "[RUN] runtime ...",
    "[RUN] runtime done",
    "[RUN] validate ...",
    "[RUN]   'y' PASS  shape=(1024, 512) dtype=torch.float32",
    "[RUN] validate done",
    "[RUN] PASS",
]


def without_times(lines):
    return [re.sub(r" \(\d+\.\d\ds\)$", "", line) for line in lines]


def test_hello_world_passes_under_the_host(host, tmp_path):
    proc = host(SAMPLES / "hello_world.py", "-p", "a2a3sim", "-d", "0")
    assert proc.returncode == 0, proc.stderr
    assert without_times(stage_lines(proc.stdout)) == PASS_STAGES
    assert re.search(r"^\[RUN\] PASS \(\d+\.\d\ds\)$", proc.stdout, re.M)
    builds = list((tmp_path / "build_output").iterdir())
    assert [b.name.split("_")[0] for b in builds] == ["hello"]
    assert (builds[0] / "compiled_meta.json").is_file() and (builds[0] / "sim_program.json").is_file()


def test_hello_world_passes_under_python3(python3):
    proc = python3(SAMPLES / "hello_world.py", "-p", "a2a3sim")
    assert proc.returncode == 0, proc.stderr
    assert without_times(stage_lines(proc.stdout)) == PASS_STAGES


def test_broken_twin_fails_with_the_mismatch_report(host):
    proc = host(SAMPLES / "hello_world_broken.py", "-p", "a2a3sim")
    assert proc.returncode == 1
    out = proc.stdout
    assert "[RUN]   'y' FAIL  shape=(1024, 512) dtype=torch.float32" in out
    assert "[RUN] PASS" not in out
    report = out[out.index("Output(s) does not match golden: ['y']") :].splitlines()
    assert report[1] == "  'y' FAIL  shape=(1024, 512) dtype=torch.float32"
    assert report[2] == "    Mismatched elements: 524288/524288  rtol=1e-05 atol=1e-05"
    # y = x + 1.5 against x - 1.5: every element is off by 3 (up to float32 rounding).
    assert re.fullmatch(r"    Greatest absolute difference: (3\.0|2\.99|3\.00)\d* at index \(\d+, \d+\)", report[3])
    assert re.fullmatch(r"    Greatest relative difference: \S+ at index \(\d+, \d+\)", report[4])
    assert report[5] == "    first 20 mismatches:"
    assert re.fullmatch(r"    \[0\] actual=\S+, expected=\S+", report[6])
    assert len(report) == 6 + 20


def test_broken_twin_fails_under_python3_too(python3):
    proc = python3(SAMPLES / "hello_world_broken.py", "-p", "a2a3sim")
    assert proc.returncode == 1
    assert "Output(s) does not match golden: ['y']" in proc.stdout


def test_seeded_inputs_are_the_same_under_both_commands(host, python3, tmp_path):
    # torch.randn is called natively on the same global generator the script seeded.
    script = tmp_path / "dump_inputs.py"
    script.write_text(
        "import sys, torch\n"
        f"sys.path.insert(0, {str(SAMPLES)!r})\n"
        "import hello_world as hw\n"
        "from golden import run\n"
        "torch.manual_seed(7)\n"
        "seen = {}\n"
        "def golden(v):\n"
        "    seen['x'] = v['x'].clone()\n"
        "    hw.golden_hello_world(v)\n"
        "run(fn=hw.hello_world, specs=hw.build_specs(), golden_fn=golden)\n"
        "torch.manual_seed(7)\n"
        "print('SAME', torch.equal(seen['x'], torch.randn(1024, 512)))\n"
    )
    for proc in (host(script), python3(script)):
        assert proc.returncode == 0, proc.stderr
        assert "SAME True" in proc.stdout


@pytest.mark.parametrize("isa", ["scalar", "avx2"])
def test_topk_passes_on_every_sort_path(host, tmp_path, isa):
    # The fastest sort kernels the CPU has are picked (AVX-512, AVX2, portable); the others
    # must give a passing run too (the unit tests compare them bit for bit).
    proc = host(SAMPLES / "topk.py", "-p", "a2a3sim", env=clean_env(tmp_path, PYPTO_SIM_SORT_ISA=isa))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "[RUN]   'topk_idx' PASS  shape=(256, 16) dtype=torch.int32" in proc.stdout
