"""Rank workers in their own processes: a host starts `pypto-golden --worker` children on this
machine, they join its rank store and form a Gloo group with it, data goes to each and back,
and every one is stopped and reaped; a worker that dies is named."""

import pytest

from conftest import HOST_BIN, clean_env

LINK_CHECK = """
import os, sys, _pypto_golden
world, nbytes = int(sys.argv[1]), int(sys.argv[2])
us = _pypto_golden._rank_link_check(world, nbytes)
print(len(us), all(u > 0 for u in us))
try:
    os.waitpid(-1, os.WNOHANG)
    print("a child is left")
except ChildProcessError:
    print("no child left")
"""


@pytest.mark.parametrize("world", [2, 4])
def test_workers_under_python3_form_a_group_and_leave_nothing(python3, tmp_path, world):
    (tmp_path / "link.py").write_text(LINK_CHECK)
    proc = python3("link.py", world, 1 << 20)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{world} True\nno child left\n", "")


def test_workers_of_a_pypto_golden_host_are_its_own_executable(host, tmp_path):
    (tmp_path / "link.py").write_text(LINK_CHECK)
    proc = host("link.py", 2, 3)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "2 True\nno child left\n", "")


def test_a_worker_that_dies_is_named_and_the_rest_are_reaped(python3, tmp_path):
    # Rank 1's process kills itself before it can join; rank 0 would wait for the group.
    wrapper = tmp_path / "worker.sh"
    wrapper.write_text(f'#!/bin/sh\ncase " $* " in *" --rank 1 "*) kill -9 $$ ;; esac\nexec {HOST_BIN} "$@"\n')
    wrapper.chmod(0o755)
    (tmp_path / "link.py").write_text(
        "import os, _pypto_golden\n"
        "try:\n"
        "    _pypto_golden._rank_link_check(2, 8)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "try:\n"
        "    os.waitpid(-1, os.WNOHANG)\n"
        "except ChildProcessError:\n"
        "    print('no child left')\n")
    proc = python3("link.py", env=clean_env(tmp_path, PYPTO_GOLDEN_BIN=wrapper), timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert first.startswith("rank 1 (pid ") and first.endswith(" on this machine) was killed by signal 9 (SIGKILL)")
    assert second == "no child left"


def test_a_worker_executable_that_cannot_start(python3, tmp_path):
    (tmp_path / "link.py").write_text(
        "import _pypto_golden\n"
        "try:\n"
        "    _pypto_golden._rank_link_check(2, 8)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n")
    proc = python3("link.py", env=clean_env(tmp_path, PYPTO_GOLDEN_BIN=tmp_path / "missing"))
    assert proc.stdout == f"cannot start the worker of rank 0 ({tmp_path / 'missing'}): No such file or directory\n"
