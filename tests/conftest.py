"""Shared fixtures: where the built executable and extension are, and how to run them."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("PYPTO_GOLDEN_BUILD_DIR", REPO / "build"))
HOST_BIN = Path(os.environ.get("PYPTO_GOLDEN_BIN", BUILD / "bin" / "pypto-golden"))
EXT_DIR = Path(os.environ.get("PYPTO_GOLDEN_EXT_DIR", BUILD / "python"))
# The interpreter the build was configured with (ctest passes it); pytest runs under it too.
PYTHON = os.environ.get("PYPTO_GOLDEN_PYTHON", sys.executable)
SAMPLES = REPO / "samples"


def clean_env(tmp_path, **extra):
    """The environment of a user's shell: no harness knobs, builds under tmp_path."""
    # PYPTO_SIM_RANKS is kept: ctest's l3_process_ranks runs the L3 suites again with it.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYPTO_", "PYTHONPATH")) or k == "PYPTO_SIM_RANKS"}
    env["PYPTO_PROG_BUILD_DIR"] = str(tmp_path / "build_output")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture
def host(tmp_path):
    """Runs pypto-golden with arguments; returns the CompletedProcess (text mode)."""

    def run(*args, env=None, timeout=120, cwd=None):
        return subprocess.run(
            [str(HOST_BIN), *map(str, args)],
            cwd=cwd or tmp_path,
            env=env or clean_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def python3(tmp_path):
    """Runs Debian's python3 with pylib and the extension module on the path."""

    def run(*args, env=None, timeout=120):
        env = env or clean_env(tmp_path)
        env["PYTHONPATH"] = f"{REPO / 'pylib'}:{EXT_DIR}"
        return subprocess.run(
            [PYTHON, *map(str, args)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout
        )

    return run


@pytest.fixture
def builds(tmp_path, monkeypatch):
    """Builds of the test go to tmp_path/builds (PYPTO_PROG_BUILD_DIR); returns that path."""
    root = tmp_path / "builds"
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(root))
    return root


def stage_lines(stdout):
    return [line for line in stdout.splitlines() if line.startswith("[RUN]")]


def bench_lines(out):
    """The lines between "[RUN] benchmark ..." and "[RUN] benchmark done"."""
    lines = out.splitlines()
    start = lines.index("[RUN] benchmark ...")
    end = next(i for i, line in enumerate(lines) if line.startswith("[RUN] benchmark done"))
    return lines[start + 1 : end]


sys.path.insert(0, str(REPO / "pylib"))
sys.path.insert(0, str(EXT_DIR))
