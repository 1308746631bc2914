"""The one torch: the executable's embedded CPython is the build's interpreter (a venv's
site-packages included), and a different torch on the path is refused with one message."""

import os
import subprocess
import torch

from conftest import EXT_DIR, PYTHON, REPO, clean_env


def _interpreter_facts(*argv):
    probe = "import sys, torch; print(sys.prefix); print(sys.executable); print(torch.__file__)"
    return subprocess.run([*argv, "-c", probe], capture_output=True, text=True, check=True).stdout


def test_embedded_interpreter_is_the_build_interpreter_with_its_site_packages(host, tmp_path):
    script = tmp_path / "probe.py"
    script.write_text("import sys, torch\nprint(sys.prefix)\nprint(sys.executable)\nprint(torch.__file__)\n")
    proc = host(script)  # no PYTHONPATH, no PYTHONHOME: the user's plain shell
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == _interpreter_facts(PYTHON)


def _fake_torch(tmp_path, version="0.0.1+fake"):
    pkg = tmp_path / "other" / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(f"__version__ = {version!r}\n")
    (pkg / "version.py").write_text(f"__version__ = {version!r}\n")
    return pkg


def test_executable_refuses_a_different_torch_on_the_path(host, tmp_path):
    pkg = _fake_torch(tmp_path)
    script = tmp_path / "probe.py"
    script.write_text("print('the script ran')\n")
    proc = host(script, env=clean_env(tmp_path, PYTHONPATH=pkg.parent))
    assert proc.returncode == 2
    assert proc.stdout == ""
    built_dir = os.path.dirname(os.path.realpath(torch.__file__))
    assert proc.stderr == (
        f"pypto-golden: pypto-golden was built against torch {torch.__version__} ({built_dir}), but its "
        f"Python ({PYTHON}) imports torch 0.0.1+fake from {pkg} (PYTHONPATH?); run it in the environment "
        f"it was built with, or rebuild it against this interpreter: cmake -B build "
        f"-DPython3_EXECUTABLE={PYTHON}\n"
    )


def test_extension_refuses_a_different_torch_before_loading(tmp_path):
    pkg = _fake_torch(tmp_path)
    env = clean_env(tmp_path, PYTHONPATH=f"{pkg.parent}:{REPO / 'pylib'}:{EXT_DIR}")
    proc = subprocess.run([PYTHON, "-c", "import golden"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    built_dir = os.path.dirname(os.path.realpath(torch.__file__))
    ext = next(EXT_DIR.glob("_pypto_golden*.so"))
    assert last == (
        f"ImportError: the _pypto_golden extension ({ext}) was built against torch {torch.__version__} "
        f"({built_dir}), but this Python ({PYTHON}) imports torch 0.0.1+fake from {pkg}; run with the "
        f"interpreter it was built with ({PYTHON}) or rebuild it: cmake -B build -DPython3_EXECUTABLE={PYTHON}"
    )
    assert "undefined symbol" not in proc.stderr

