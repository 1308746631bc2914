"""The Python code stays clean under the repository's ruff.toml (what .ci/setup installs)."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_pylib_and_tests_are_ruff_clean():
    try:
        import ruff  # noqa: F401
    except ImportError:
        pytest.skip("ruff is not installed in this interpreter (bash .ci/setup installs it)")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "pylib", "tests"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
