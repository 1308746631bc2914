"""The pypto-golden command line: host options, sys.argv, exit statuses, gdb, install."""

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time

import pytest
import torch

from conftest import BUILD, HOST_BIN, PYTHON, REPO, SAMPLES, clean_env
from kernel_scripts import write_kernel_script


def test_help(host):
    proc = host("--help")
    assert proc.returncode == 0
    assert proc.stdout.startswith(
        "usage: pypto-golden [--help] [--version] [--threads N] [--seed N] [--save-data]\n"
        "                    [--golden-data DIR] [--runtime-dir DIR] [--compile-only]\n"
        "                    [--bench[=ROUNDS]] [--simulate] [--junit FILE] [--report DIR]\n"
        "                    [--ranks=thread|process] [--rank-hosts FILE]\n"
        "                    SCRIPT [SCRIPT ARGS...]\n")
    for option in ("--threads N     torch CPU threads for the golden (sets PYPTO_GOLDEN_NUM_THREADS)",
                   "--seed N        seed torch's generator and Python's random before the script\n"
                   "                  (sets PYPTO_GOLDEN_SEED): the same random inputs every run",
                   "--save-data     every run() saves inputs and goldens under <work_dir>/data",
                   "--compile-only  every run() stops after compile"):
        assert option in proc.stdout


def test_version(host):
    proc = host("--version")
    assert proc.returncode == 0
    major, minor = sys.version_info[:2]
    torch_version = re.escape(torch.__version__)  # pytest runs under the build's interpreter
    assert re.fullmatch(rf"pypto-golden \d+\.\d+\.\d+ \(Python {major}\.{minor}\.\d+, torch {torch_version}\)\n",
                        proc.stdout)


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "no script given"),
        (["--bogus", "k.py"], "unknown host option '--bogus' (host options go before the script; see --help)"),
        (["--threads", "0", "k.py"], "--threads must be a positive integer, got '0'"),
        (["--threads"], "--threads needs a value (a positive integer)"),
        (["--seed", "1e3", "k.py"], "--seed must be an integer from 0 to 2**64 - 1, got '1e3'"),
        (["--golden-data"], "--golden-data needs a directory"),
        (["--runtime-dir="], "--runtime-dir needs a directory"),
        (["--junit"], "--junit needs a file"),
        (["--report"], "--report needs a directory"),
        (["--ranks=processes", "k.py"], "--ranks must be 'thread' or 'process', got 'processes'"),
        (["--ranks"], "--ranks must be 'thread' or 'process'"),
        (["--rank-hosts"], "--rank-hosts needs a file (one machine a line: NAME [slots=N] [bin=PATH])"),
        (["--rank-hosts", "h.txt", "--ranks=thread", "k.py"],
         "--rank-hosts starts the ranks in worker processes; it does not go with --ranks=thread"),
        (["--worker", "k.py"], "--worker takes no script (a worker runs what its host process sends it), got 'k.py'"),
        (["--rank", "1", "k.py"], "--rank is an option of --worker"),
        (["--worker", "--rank", "-1"], "--rank needs a rank (an integer from 0), got '-1'"),
        (["--worker", "--world-size=0"], "--world-size needs a positive integer, got '0'"),
        (["--worker", "--store", "node"], "--store must be HOST:PORT (a port from 1 to 65535), got 'node': no port"),
    ],
)
def test_usage_errors_exit_2(host, args, message):
    proc = host(*args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"pypto-golden: {message}\nusage: pypto-golden")


def closed_port():
    """A local TCP port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "args, env, message",
    [
        ([], {}, "pypto-golden --worker: no rank store given: pass --store HOST:PORT (or set MASTER_ADDR and "
                 "MASTER_PORT)"),
        (["--store", "h:1"], {}, "pypto-golden --worker: no rank given: pass --rank R (or set RANK)"),
        (["--store", "h:1", "--rank", "0"], {}, "pypto-golden --worker: no world size given: pass --world-size N (or "
                                                "set WORLD_SIZE)"),
        # torchrun's variables stand in for the options.
        ([], {"MASTER_ADDR": "h", "MASTER_PORT": "1", "RANK": "3", "WORLD_SIZE": "2"},
         "pypto-golden --worker: rank 3 is out of range for a world of 2 ranks (0 to 1)"),
        ([], {"MASTER_ADDR": "h", "MASTER_PORT": "1", "RANK": "x", "WORLD_SIZE": "2"},
         "pypto-golden --worker: RANK must be a non-negative integer, got 'x'"),
        ([], {"MASTER_PORT": "1"}, "pypto-golden --worker: MASTER_PORT is set but MASTER_ADDR is not: set both, or "
                                   "neither"),
        (["--store", "h:1", "--rank", "0", "--world-size", "1"], {"PYPTO_SIM_RANK_TIMEOUT": "soon"},
         "pypto-golden --worker: PYPTO_SIM_RANK_TIMEOUT must be a positive number of seconds (at most 86400), got "
         "'soon'"),
    ],
)
def test_worker_refuses_what_it_cannot_run(host, tmp_path, args, env, message):
    proc = host("--worker", *args, env={**clean_env(tmp_path), **env})
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message + "\n")


def test_worker_names_a_store_it_cannot_reach(host, tmp_path):
    port = closed_port()
    start = time.monotonic()
    proc = host("--worker", "--store", f"127.0.0.1:{port}", "--rank", "1", "--world-size", "2",
                env={**clean_env(tmp_path), "PYPTO_SIM_RANK_TIMEOUT": "0.5"})
    assert time.monotonic() - start < 20
    # No lines of c10d's own retries, one message.
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2, "", f"pypto-golden --worker (rank 1): cannot reach the rank store at 127.0.0.1:{port} within 0.5 s: no "
               "host process accepted a connection there (is it running, and is the address one this machine can "
               "reach?)\n")


def test_script_sees_its_own_argv_and_file(host, tmp_path):
    script = tmp_path / "show.py"
    script.write_text("import sys\nprint(sys.argv)\nprint(__name__, __file__)\n")
    proc = host(script, "-p", "a2a3sim", "--threads", "9", "-d", "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{[str(script), '-p', 'a2a3sim', '--threads', '9', '-d', '0']}\n__main__ {script}\n"


def test_script_imports_its_neighbours_and_our_golden(host, tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 41\n")
    script = tmp_path / "main.py"
    script.write_text("import helper_mod, golden\nprint(helper_mod.VALUE + 1, golden.__file__)\n")
    proc = host(script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"42 {REPO / 'pylib' / 'golden' / '__init__.py'}\n"


@pytest.mark.parametrize("option, env_value, expected",
                         [(["--threads", "3"], None, "3"), ([], "5", "5"), ([], None, "16")])
def test_golden_threads(host, tmp_path, option, env_value, expected):
    script = tmp_path / "threads.py"
    script.write_text("import golden, torch\nprint(torch.get_num_threads())\n")
    env = clean_env(tmp_path) if env_value is None else clean_env(tmp_path, PYPTO_GOLDEN_NUM_THREADS=env_value)
    proc = host(*option, script, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{expected}\n"


def test_a_thread_count_no_machine_has_is_the_documented_value_error(host, tmp_path):
    script = tmp_path / "threads.py"
    script.write_text("import golden\nprint('never')\n")
    proc = host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_NUM_THREADS="3000000000"))
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == \
        "ValueError: PYPTO_GOLDEN_NUM_THREADS must be at most 65536, got '3000000000'"


def test_seed_gives_the_same_random_numbers_before_and_after_import_golden(host, tmp_path):
    # Applied before the script runs, so even draws made before `import golden` repeat.
    script = tmp_path / "draw.py"
    script.write_text("import random, torch\nprint(torch.initial_seed(), torch.rand(3).tolist(), random.random())\n"
                      "import golden\nprint(torch.rand(2).tolist())\n")
    runs = [host("--seed", "12345", script), host("--seed=12345", script),
            host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_SEED="12345"))]
    assert [p.returncode for p in runs] == [0, 0, 0], runs[0].stderr
    assert runs[0].stdout.startswith("12345 ")
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    other = host("--seed", "12346", script)
    assert other.stdout != runs[0].stdout
    unseeded = [host(script).stdout for _ in range(2)]
    assert unseeded[0] != unseeded[1]  # torch draws its own seed per process


def test_a_bad_seed_variable_is_a_value_error_naming_it(host, tmp_path):
    script = tmp_path / "draw.py"
    script.write_text("print('never')\n")
    proc = host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_SEED="0x10"))
    assert proc.returncode == 1
    assert "never" not in proc.stdout
    assert proc.stderr.splitlines()[-1] == \
        "ValueError: PYPTO_GOLDEN_SEED must be an integer from 0 to 2**64 - 1, got '0x10'"


SPIN_MAIN = """
@pl.jit
def spin(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    for i in pl.range(0, 1000000000):
        with pl.at(level=pl.Level.CORE_GROUP):
            y[0:16, :] = pl.add(x[0:16, :], 1.0)
    return y

finish(run(fn=spin, specs=[TensorSpec("x", [16, 16], torch.float32), TensorSpec("y", [16, 16], torch.float32)],
           golden_fn=lambda v: None))
"""

SLOW_GOLDEN_MAIN = """
import time

def slow_golden(values):
    time.sleep(600)

finish(run(fn=add_kernel, specs=specs(), golden_fn=slow_golden))
"""


def interrupt_when(cmd, env, marker, cwd, signum=signal.SIGINT):
    """Starts cmd, sends `signum` once `marker` was printed; returns (proc, stdout, stderr,
    seconds): the seconds from the signal until the stage said it was interrupted (its
    "[RUN] <stage> interrupted" line). The process's own exit after that (interpreter and
    torch teardown) is bounded separately, more loosely: on a loaded 2-core machine it alone
    can take most of a second."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith(marker):
            break
    time.sleep(0.5)
    start = time.monotonic()
    proc.send_signal(signum)
    watchdog = threading.Timer(30, proc.kill)  # a run that does not stop must not hang the suite
    watchdog.start()
    stopped = None
    for line in proc.stdout:
        lines.append(line)
        if stopped is None and re.match(r"^\[RUN\] .* interrupted", line):
            stopped = time.monotonic() - start
    err = proc.stderr.read()
    proc.wait(timeout=30)
    watchdog.cancel()
    assert time.monotonic() - start < 5.0, "the process took %.1f s to exit after the signal" % (
        time.monotonic() - start)
    return proc, "".join(lines), err, stopped if stopped is not None else float("inf")


SLOW_COMPILE_MAIN = """
import time

class SlowBuild:  # a kernel object whose compile takes its time
    param_names = add_kernel.param_names
    __name__ = "add_kernel"

    def compile(self, *args, **kwargs):
        time.sleep(600)

finish(run(fn=SlowBuild(), specs=specs(), golden_fn=golden))
"""

SLOW_INPUTS_MAIN = """
import time

def slow_init():
    time.sleep(600)

finish(run(fn=add_kernel, specs=[TensorSpec("x", [ROWS, COLS], torch.float32, init_value=slow_init), *specs()[1:]],
           golden_fn=golden))
"""

SLOW_COMPARE_MAIN = """
import time

def slow_compare(actual, expected, **context):
    time.sleep(600)

finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, compare_fn={"y": slow_compare}))
"""

# A benchmark that takes forever: its kernel is short (1000 tasks, where SPIN_MAIN runs 10^9), its
# rounds (PYPTO_BENCH_ROUNDS, set by the test) are a million.
BENCH_MAIN = SPIN_MAIN.replace("1000000000", "1000")


@pytest.mark.parametrize(
    "main, stage, marker",
    [(SLOW_COMPILE_MAIN, "compile", "[RUN] compile ..."),
     (SLOW_INPUTS_MAIN, "generate inputs", "[RUN] generate inputs ..."),
     (SLOW_GOLDEN_MAIN, "compute golden", "[RUN] compute golden ..."),
     (SPIN_MAIN, "runtime", "[RUN] runtime ..."),
     (BENCH_MAIN, "benchmark", "[RUN] benchmark ..."),
     (SLOW_COMPARE_MAIN, "validate", "[RUN] validate ...")],
    ids=["compile", "generate-inputs", "python-golden", "native-dispatch", "benchmark", "validate"],
)
@pytest.mark.parametrize(
    "signum, status, cause",
    [(signal.SIGINT, 130, "interrupted by Ctrl-C"), (signal.SIGTERM, 143, "terminated by SIGTERM")],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_and_sigterm_stop_within_a_second(tmp_path, main, stage, marker, signum, status, cause):
    script = write_kernel_script(tmp_path, main=main)
    bench = {"PYPTO_BENCH": 1, "PYPTO_BENCH_ROUNDS": 1000000} if stage == "benchmark" else {}
    env = clean_env(tmp_path, **bench)
    proc, out, err, seconds = interrupt_when([str(HOST_BIN), str(script)], env, marker, tmp_path, signum)
    assert proc.returncode == status
    assert seconds < 1.0
    assert re.search(rf"^\[RUN\] {stage} interrupted \(\d+\.\d\ds\)$", out, re.M)
    assert re.search(rf"KeyboardInterrupt: {cause} in stage '{stage}' after \d+\.\d\ds\n$", err)


def test_ctrl_c_under_python3_dies_by_sigint(tmp_path):
    script = write_kernel_script(tmp_path, main=SPIN_MAIN)
    env = clean_env(tmp_path, PYTHONPATH=f"{REPO / 'pylib'}:{BUILD / 'python'}")
    proc, out, err, seconds = interrupt_when([PYTHON, str(script)], env, "[RUN] runtime ...", tmp_path)
    assert proc.returncode == -signal.SIGINT  # a shell reports 130
    assert seconds < 1.0
    assert "[RUN] runtime interrupted" in out


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_runs_under_gdb_in_one_process_with_symbols(tmp_path):
    env = clean_env(tmp_path)
    # Under the sanitizer build the ASan runtime is preloaded: into the program, not into gdb
    # (gdb with it preloaded does not finish).
    preload = env.pop("LD_PRELOAD", None)
    inferior_env = ["-ex", f"set environment LD_PRELOAD={preload}"] if preload else []
    proc = subprocess.run(
        ["gdb", "-batch", *inferior_env, "-ex", "info line pypto_golden::run_pipeline", "-ex", "run",
         "--args", str(HOST_BIN), str(SAMPLES / "hello_world.py"), "-p", "a2a3sim"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert re.search(r'Line \d+ of ".*host/run/pipeline\.cpp"', proc.stdout), proc.stdout[-2000:]
    assert "[RUN] PASS" in proc.stdout
    assert re.search(r"\[Inferior 1 \(process \d+\) exited normally\]", proc.stdout)
    assert "Detaching after fork" not in proc.stdout  # no child processes


def test_cmake_install_puts_everything_where_shell_and_python3_find_it(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)], check=True, capture_output=True)
    exe = prefix / "bin" / "pypto-golden"
    # Debian's python searches dist-packages, a venv or any other CPython site-packages.
    flavour = "dist-packages" if "dist-packages" in sysconfig.get_path("purelib") else "site-packages"
    site = prefix / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / flavour
    assert exe.is_file() and (site / "golden" / "__init__.py").is_file() and (site / "pypto" / "jit").is_dir()
    assert list(site.glob("_pypto_golden*.so"))
    probe = tmp_path / "probe.py"
    probe.write_text("import golden, pypto\nprint(golden.__file__)\nprint(pypto.__file__)\n")
    proc = subprocess.run([str(exe), str(probe)], cwd=tmp_path, env=clean_env(tmp_path), capture_output=True, text=True)
    assert proc.stdout == f"{site / 'golden' / '__init__.py'}\n{site / 'pypto' / '__init__.py'}\n", proc.stderr
    ran = subprocess.run([str(exe), str(SAMPLES / "hello_world.py"), "-p", "a2a3sim"], cwd=tmp_path,
                         env=clean_env(tmp_path), capture_output=True, text=True)
    assert ran.returncode == 0 and "[RUN] PASS" in ran.stdout, ran.stderr
    env = clean_env(tmp_path, PYTHONPATH=site)
    by_python = subprocess.run([PYTHON, str(SAMPLES / "hello_world.py"), "-p", "a2a3sim"], cwd=tmp_path, env=env,
                               capture_output=True, text=True)
    assert by_python.returncode == 0 and "[RUN] PASS" in by_python.stdout, by_python.stderr


def test_bench_option_turns_on_benchmark_mode_for_the_run(host, tmp_path):
    proc = host("--bench=3", SAMPLES / "hello_world.py", "-p", "a2a3sim")
    assert proc.returncode == 0, proc.stderr
    assert "[RUN]   effective_us unavailable: sim platform has no device timing" in proc.stdout
    assert re.search(r"^\[RUN\]   host_us \(3 rounds\) min=", proc.stdout, re.M)
    bad = host("--bench=x", SAMPLES / "hello_world.py")
    assert bad.returncode == 2
    assert bad.stderr.startswith("pypto-golden: --bench=ROUNDS needs a positive integer, got 'x'\n")


def test_bench_json_written_by_the_executable_has_a_context_block(host, tmp_path):
    path = tmp_path / "bench.json"
    proc = host("--bench=2", SAMPLES / "hello_world.py", "-p", "a2a3sim",
                env=clean_env(tmp_path, PYPTO_BENCH_JSON=path, PYPTO_SIM_THREADS=2))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(path.read_text())
    assert (doc["kernel"], doc["platform"], doc["rounds"]) == ("hello_world", "a2a3sim", 2)
    context = doc["context"]
    assert sorted(context) == ["build_type", "date", "host_name", "num_cpus", "pypto_golden_version", "sim_threads",
                               "torch_version"]
    assert context["sim_threads"] == 2 and isinstance(context["num_cpus"], int)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", context["date"])
    version = host("--version").stdout
    assert f"pypto-golden {context['pypto_golden_version']} " in version
    assert f"torch {context['torch_version']})" in version


HOG = """
import time, torch
print("allocating", flush=True)
x = torch.ones(768 * 1024 * 1024 // 4)  # 768 MiB, touched
time.sleep(%s)
print("not stopped")
"""


def test_the_memory_guard_stops_a_run_past_its_size_with_one_message(host, tmp_path):
    # What the budget check before a run cannot see (the script's own data) still ends in
    # one message and exit status 3, within the guard's poll, not in a silent OOM kill.
    script = tmp_path / "hog.py"
    script.write_text(HOG % 30)
    start = time.monotonic()
    proc = host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="600M"))
    assert time.monotonic() - start < 20
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stdout == "allocating\n"
    assert re.fullmatch(r"pypto-golden: out of memory: the run holds \d+\.\d MiB, more than "
                        r"PYPTO_GOLDEN_MEMORY_GUARD=600\.0 MiB; stopped \(exit status 3\)\n", proc.stderr), proc.stderr


def test_the_memory_guard_can_be_turned_off_and_a_bad_setting_is_a_usage_error(host, tmp_path):
    script = tmp_path / "hog.py"
    script.write_text(HOG % 0)
    proc = host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="off"))
    assert proc.returncode == 0 and proc.stdout == "allocating\nnot stopped\n", proc.stderr
    proc = host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_GUARD="lots"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("pypto-golden: PYPTO_GOLDEN_MEMORY_GUARD must be 'off' or a positive byte count, "
                           "optionally with a K, M, G or T suffix (e.g. 16G), got 'lots'\n")
