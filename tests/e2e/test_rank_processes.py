"""Rank workers in their own processes: a host starts `pypto-golden --worker` children on this
machine, they join its rank store and form a Gloo group with it, data goes to each and back,
and every one is stopped and reaped; a worker that dies is named."""

import os
import subprocess

import pytest

from conftest import EXT_DIR, HOST_BIN, PYTHON, REPO, clean_env

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


@pytest.fixture
def two_namespaces():
    """Two network namespaces joined by a veth pair, 10.231.0.1 and 10.231.0.2: two hosts
    standing in for two machines, with no route out of this one. Skipped where namespaces
    cannot be made (no root, no iproute2, a container without the capability)."""
    tag = f"{os.getpid() % 100000}"
    host_ns, work_ns = f"pg-h{tag}", f"pg-w{tag}"
    host_if, work_if = f"pgh{tag}", f"pgw{tag}"
    steps = [["ip", "netns", "add", host_ns], ["ip", "netns", "add", work_ns],
             ["ip", "link", "add", host_if, "type", "veth", "peer", "name", work_if],
             ["ip", "link", "set", host_if, "netns", host_ns], ["ip", "link", "set", work_if, "netns", work_ns],
             ["ip", "-n", host_ns, "addr", "add", "10.231.0.1/24", "dev", host_if],
             ["ip", "-n", work_ns, "addr", "add", "10.231.0.2/24", "dev", work_if]]
    for ns, interface in ((host_ns, host_if), (work_ns, work_if)):
        steps += [["ip", "-n", ns, "link", "set", "lo", "up"], ["ip", "-n", ns, "link", "set", interface, "up"]]
    try:
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                pytest.skip(f"cannot make network namespaces here: {' '.join(step)}: {done.stderr.strip()}")
        yield {"host": (host_ns, host_if), "worker": (work_ns, work_if)}
    except FileNotFoundError:
        pytest.skip("no ip command (iproute2) here")
    finally:
        for ns in (host_ns, work_ns):  # the veth pair goes with them
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def test_ranks_across_two_network_namespaces(tmp_path, two_namespaces):
    """The host in one namespace serves the store on its address; two workers in the other,
    started by hand as on a second machine, reach it there and form the group with it."""
    host_ns, host_if = two_namespaces["host"]
    work_ns, work_if = two_namespaces["worker"]
    (tmp_path / "link.py").write_text(
        "import sys, _pypto_golden\n"
        "us = _pypto_golden._rank_link_check(2, 1 << 20, listen='10.231.0.1:29631')\n"
        "print(len(us), all(u > 0 for u in us))\n")
    env = clean_env(tmp_path, PYTHONPATH=f"{REPO / 'pylib'}:{EXT_DIR}", GLOO_SOCKET_IFNAME=host_if,
                    PYPTO_SIM_RANK_TIMEOUT=30)
    host = subprocess.Popen(["ip", "netns", "exec", host_ns, PYTHON, "link.py"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    worker_env = clean_env(tmp_path, GLOO_SOCKET_IFNAME=work_if, PYPTO_SIM_RANK_TIMEOUT=30)
    workers = [subprocess.Popen(["ip", "netns", "exec", work_ns, str(HOST_BIN), "--worker", "--store",
                                 "10.231.0.1:29631", "--rank", str(r), "--world-size", "2"], env=worker_env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(2)]
    try:
        out, err = host.communicate(timeout=90)
        ends = [w.communicate(timeout=30) + (w.returncode,) for w in workers]
    finally:
        for p in [host, *workers]:
            p.kill()
    assert (host.returncode, out, err) == (0, "2 True\n", "")
    assert ends == [("", "", 0), ("", "", 0)]
