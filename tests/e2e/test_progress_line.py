"""The progress line of a long stage: shown on a terminal (a pseudo-terminal here), rewritten
in place and erased before the stage's own end line; never in captured output."""

import os
import pty
import re
import select
import subprocess
import time

from conftest import HOST_BIN, clean_env
from kernel_scripts import write_kernel_script

# A golden of 2.6 s and a runtime stage of about four seconds (a million tasks in a row).
LONG_MAIN = """
import time

@pl.jit
def many(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    for i in pl.range(0, TRIPS):
        with pl.at(level=pl.Level.CORE_GROUP):
            y[0:16, :] = pl.add(x[0:16, :], 1.0)
    return y

def golden_many(v):
    time.sleep(2.6)
    v["y"][:] = v["x"] + 1.0

finish(run(fn=many, specs=[TensorSpec("x", [16, 16], torch.float32, init_value=torch.randn),
                           TensorSpec("y", [16, 16], torch.float32)], golden_fn=golden_many))
"""


# Enough tasks for a runtime stage well past the two seconds after which progress shows
# (about 4 s on a 2-core machine in 2026-12, at ~0.35 us a task: 1.2 million were enough before
# the FP32 add stopped going through ATen, 6 million before windows of a dispatch's arguments
# borrowed their storage).
LONG_TRIPS = 12_000_000


def long_script(tmp_path):
    return write_kernel_script(tmp_path, main=LONG_MAIN.replace("TRIPS", str(LONG_TRIPS)), name="long.py")


def run_on_a_terminal(cmd, env, cwd, timeout=300):
    """Runs cmd with stdout and stderr on a pseudo-terminal; returns (status, everything written)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side closed: the process is gone
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(leader)
    return proc.wait(timeout=30), out.decode(errors="replace")


def test_a_long_stage_shows_progress_on_a_terminal_and_erases_it(tmp_path):
    status, out = run_on_a_terminal([str(HOST_BIN), str(long_script(tmp_path))], clean_env(tmp_path, TERM="xterm"),
                                    tmp_path)
    assert status == 0, out
    updates = re.findall(r"\r\x1b\[K\[RUN\] runtime \.\.\. (\d+\.\d)s, ([\d,]+) tasks?", out)
    assert len(updates) >= 2, out[-2000:]
    seconds = [float(s) for s, _ in updates]
    tasks = [int(n.replace(",", "")) for _, n in updates]
    assert seconds[0] >= 2.0 and seconds == sorted(seconds) and tasks == sorted(tasks)
    assert tasks[-1] <= LONG_TRIPS
    # The golden shows its time only.
    assert re.search(r"\r\x1b\[K\[RUN\] compute golden \.\.\. 2\.\ds\r\x1b\[K\[RUN\] compute golden done", out), out
    # Erased before the end line, which is the same as without a terminal.
    assert re.search(r"\r\x1b\[K\[RUN\] runtime done \(\d+\.\d\ds\)\r?\n", out), out[-2000:]


def test_no_progress_in_captured_output_or_when_turned_off(tmp_path):
    script = long_script(tmp_path)
    captured = subprocess.run([str(HOST_BIN), str(script)], cwd=tmp_path, env=clean_env(tmp_path, TERM="xterm"),
                              capture_output=True, text=True, timeout=300)
    assert captured.returncode == 0
    assert "\r" not in captured.stdout and "\x1b" not in captured.stdout
    assert re.search(r"^\[RUN\] runtime \.\.\.\n\[RUN\] runtime done \(\d+\.\d\ds\)$", captured.stdout, re.M)
    status, out = run_on_a_terminal([str(HOST_BIN), str(script)],
                                    clean_env(tmp_path, TERM="xterm", PYPTO_GOLDEN_PROGRESS=0), tmp_path)
    assert status == 0 and "\x1b[K" not in out
