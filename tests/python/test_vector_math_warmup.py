"""MKL's vector math (torch's exp, log, tanh... on float tensors) settles its code path at
its first call, which is not safe from several threads at once: a device's threads making
theirs together gave one of them a ~1e-4-accurate exp (the softmax sample failed its first
dispatch about one run in twenty). The module makes those first calls on import, before any
golden or dispatch can run them in parallel."""

import subprocess

from conftest import EXT_DIR, PYTHON, REPO


def test_importing_the_module_warms_up_vector_math():
    code = "import torch, _pypto_golden; print(_pypto_golden._vector_math_warmed_up())"
    proc = subprocess.run([PYTHON, "-c", code], env={"PYTHONPATH": f"{REPO / 'pylib'}:{EXT_DIR}"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
