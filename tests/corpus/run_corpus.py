#!/usr/bin/env python3
"""Runs the scripts of a pypto-lib checkout under the built pypto-golden on the simulator.

    .venv/bin/python tests/corpus/run_corpus.py                 # every runnable script
    .venv/bin/python tests/corpus/run_corpus.py --list tests/corpus/fast_passing.txt
    .venv/bin/python tests/corpus/run_corpus.py models/qwen3_14b/decode.py ...

A runnable script is a file with a `__main__` block directly in `examples/*/` or `models/*/`.
Each runs from its own copy of its folder (scripts leave build_output/ and read config.py
beside them), as `PYTHONPATH=<corpus> pypto-golden SCRIPT -p a2a3sim [-d 0]` (with --python PY,
as `PY SCRIPT ...` through the extension module), with a timeout,
up to --jobs at a time. One row per script: verdict, seconds, peak memory of the run, the
first line that tells what happened, and a note for scripts that cannot pass here for a
reason outside pypto-golden's control. Then the counts. The exit status is 0 when every
script of a --list (or given on the command line) passed, else 1; a whole-corpus run
always exits 0 unless the runner itself fails.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "pypto-lib"
VERDICTS = ("PASS", "MISMATCH", "ERROR", "TIMEOUT", "OOM")

# Several devices: L3 host programs and the distributed DSL.
# L3 constructs, or pypto-lib's CI header asking for more than one card ("# ci: devices=2").
_MULTI_DEVICE = re.compile(r"pypto\.language\.distributed|@pl\.jit\.host|\bpld\.|DistributedWorker"
                           r"|^# ci: devices=([2-9]|\d\d)", re.M)


@dataclass
class Row:
    script: str
    verdict: str
    seconds: float
    peak_mib: float
    line: str
    outside: str = ""  # why it cannot pass here for a reason outside pypto-golden
    multi_device: bool = False
    simulated: str = ""  # the hardware platform it ran as under --simulate (its argparse refuses a2a3sim)
    seed: str = ""  # a failure's torch seed (pypto-golden --seed reproduces its random inputs)
    no_golden: bool = False  # it never calls golden.run: its exit status is its verdict

    @property
    def note(self):
        return "; ".join(filter(None, [self.outside, "multi-device" if self.multi_device else "",
                                       "no golden.run: its own checks, exit 0" if self.no_golden else "",
                                       "ran as --simulate -p %s" % self.simulated if self.simulated else "",
                                       "seed %s" % self.seed if self.seed else ""]))


def corpus_dir(given):
    if given:
        return Path(given).resolve()
    env = os.environ.get("PYPTO_GOLDEN_CORPUS")
    return Path(env).resolve() if env else DEFAULT_CORPUS


def runnable_scripts(corpus):
    found = []
    for top in ("examples", "models"):
        for path in sorted((corpus / top).glob("*/*.py")):
            if re.search(r"^if __name__ == ['\"]__main__['\"]", path.read_text(errors="replace"), re.M):
                found.append(path.relative_to(corpus).as_posix())
    return found


def is_multi_device(source):
    return bool(_MULTI_DEVICE.search(source))


def telling_line(output, work=None):
    """The line a reader wants first: the error of a traceback or a failed stage, the first
    failing output, else the verdict line. Paths inside the run's work directory `work` are
    shown relative to it (the script's own folder), so the row keeps the message."""
    if work is not None:
        output = output.replace(str(work) + "/", "")
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if re.match(r"^\[RUN\]\s+'[^']+' FAIL", line):
            return line
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b", line) or line.startswith("pypto-golden:"):
            return line
    for line in reversed(lines):
        if line.startswith("[RUN] FAIL") or line.startswith("[RUN] PASS"):
            return line
    return lines[-1] if lines else ""


def machine_gib():
    """This machine's memory (MemTotal), in GiB."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / (1 << 20)
    return float("inf")


def outside_reason(output, config_source="", memory_gib=None):
    """Why a script cannot pass here for a reason outside pypto-golden, or "". config_source:
    the text of the config.py beside the script, whose classes are its config objects;
    memory_gib: this machine's memory (default: read from /proc/meminfo)."""
    m = re.search(r"not enough memory for this run: its tensors need at least ([\d.]+) GiB", output) or \
        re.search(r"not enough memory for this run: TensorSpec '[^']*': its init_value callable tried to allocate "
                  r"([\d.]+) GiB", output)
    if m:
        have = machine_gib() if memory_gib is None else memory_gib
        if float(m.group(1)) > have:
            return "it needs at least %s GiB, more than this machine's %.1f GiB of memory" % (m.group(1), have)
    m = re.search(r"pypto-golden: out of memory: .* the run holds ([\d.]+ GiB)", output)
    if m and not re.search(r"^\[RUN\]", output, re.M):
        return ("its own code holds %s before it calls golden.run, more than this machine's memory leaves it "
                "(pypto-golden's memory guard stopped it)" % m.group(1))
    if re.search(r"argument -p/--platform: invalid choice: 'a2a3sim'", output):
        return "its argparse refuses -p a2a3sim"
    m = re.search(r"'(\w+)' is a @pl.jit.extern kernel: hand-written device C\+\+", output)
    if m:
        return "it calls '%s', hand-written device C++ (@pl.jit.extern), which no simulator runs" % m.group(1)
    if "pto_isa_include_dir(): pypto-golden has no PTO-ISA checkout" in output:
        return "it builds hand-written device C++ against the PTO-ISA headers (pto_isa_include_dir), which no " \
            "simulator runs"
    m = re.search(r"pl\.(assemble|store): the write is outside the target: axis (\d+) gets \[\d+:\d+\] but the "
                  r"extent is \d+ \(target shape ([^)]*\)), source shape ([^)]*\))\); a source of \d+ axes fills "
                  r"the target's last", output)
    if m:
        return ("its kernel writes a %s tile into a %s tensor past axis %s's end: PyPTO's tile.store puts a "
                "lower-rank tile on the trailing axes, where it overruns too (a kernel bug)"
                % (m.group(4), m.group(3), m.group(2)))
    m = re.search(r"pl\.reshape: cannot reshape (\([^)]*\)) \((\d+) elements\) to (\[[^\]]*\]) \((\d+) elements\)",
                  output)
    if m:
        return ("its kernel reshapes a %s tensor (%s elements) to %s (%s elements): PyPTO's tensor.reshape refuses "
                "a reshape that changes the element count too (a kernel bug)" % m.groups())
    m = re.search(r"AttributeError: module 'config' has no attribute '(\w+)'", output)
    if m:
        return "its config module has no attribute '%s' (out of date)" % m.group(1)
    m = re.search(r"AttributeError: '(\w+)' object has no attribute '(\w+)'", output)
    if m and (m.group(1).endswith("Config") or re.search(r"^class %s\b" % m.group(1), config_source, re.M)):
        return "its config's %s has no attribute '%s' (out of date)" % m.groups()
    return ""


def unwritten_outputs(output):
    """The outputs a failing run reports the kernel never wrote part of: [(name, count, of)]."""
    return [(m.group(3), int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"never written: (\d+) of (\d+) elements of '([^']+)'", output)]


def unwritten_reason(unwritten):
    """The outside reason of a script that passes once its pure Outs start zeroed."""
    parts = ", ".join("%d of %d elements of '%s'" % (count, of, name) for name, count, of in unwritten)
    return ("its golden expects zeros where the kernel never writes a pure Out (%s); passes with "
            "PYPTO_SIM_OUT_INIT=zero" % parts)


def classify(returncode, output, timed_out, killed):
    if timed_out:
        return "TIMEOUT"
    if killed or "MemoryError" in output or "std::bad_alloc" in output or "not enough memory for this run" in output \
            or "pypto-golden: out of memory:" in output:
        return "OOM"
    if returncode == 0 and re.search(r"^\[RUN\] PASS", output, re.M):
        return "PASS"
    if returncode == 0 and not re.search(r"^\[RUN\]", output, re.M):
        return "PASS"  # no golden.run: the script's own checks (a compile smoke test), as pypto-lib's CI counts it
    if re.search(r"^\[RUN\]\s+'[^']+' FAIL", output, re.M):
        return "MISMATCH"
    return "ERROR"


def hardware_choice(output):
    """The hardware platform a script's argparse offers when it refuses a2a3sim, or None."""
    m = re.search(r"invalid choice: 'a2a3sim' \(choose from ([^)]*)\)", output)
    choices = re.findall(r"'([^']+)'", m.group(1)) if m else []
    return next((c for c in choices if c in ("a2a3", "a5")), None)


def launch(cmd, work, env, timeout):
    """Runs cmd in work; returns (returncode, seconds, peak RSS in MiB, timed_out, output)."""
    log_path = work / "output.txt"
    start = time.monotonic()
    timed_out = False
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
    return (os.waitstatus_to_exitcode(status), time.monotonic() - start, usage.ru_maxrss / 1024.0, timed_out,
            log_path.read_text(errors="replace"))


def drawn_seed(output):
    """The torch seed a failing run names for its random inputs, or ""."""
    found = re.search(r"^\[RUN\]   inputs drawn from torch seed (\d+):", output, re.M)
    return found[1] if found else ""


def prepare(script, corpus, workroot, seed=None):
    """A fresh copy of the script's folder to run it in, and its environment: (work, env, multi-device).
    `seed`: PYPTO_GOLDEN_SEED for the script, so its random inputs are the same every run."""
    multi = is_multi_device((corpus / script).read_text(errors="replace"))
    work = Path(tempfile.mkdtemp(prefix=script.replace("/", "_") + ".", dir=workroot))
    shutil.copytree(corpus / Path(script).parent, work, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("build_output", "__pycache__"))
    # PYPTO_SIM_RANKS is the one knob kept (--ranks sets it): the L3 scripts with their ranks
    # in worker processes.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYPTO_") or k == "PYPTO_SIM_RANKS"}
    env.update(PYTHONPATH=str(corpus), PYPTO_PROG_BUILD_DIR=str(work / "build_output"),
               PYTHONDONTWRITEBYTECODE="1")
    if seed is not None:
        env["PYPTO_GOLDEN_SEED"] = str(seed)
    return work, env, multi


def command(binary, script, multi, hardware=None, python=None):
    """The command line of a script: -p a2a3sim, or --simulate -p <hardware>; -d 0 unless
    multi-device (its own device list applies). `python`: run it under that interpreter
    instead of pypto-golden (python_env() makes the environment; it simulates a hardware
    platform through PYPTO_GOLDEN_SIMULATE=1, the --simulate flag's variable)."""
    run = [Path(script).name, "-p", hardware or "a2a3sim"] + ([] if multi else ["-d", "0"])
    if python:
        return [str(python)] + run
    return [str(binary)] + (["--simulate"] if hardware else []) + run


def python_env(env, corpus, binary, hardware=None):
    """`env` for a script under python3: the corpus, pylib and the built extension module (beside
    the executable's build tree, or $PYPTO_GOLDEN_EXT_DIR) on PYTHONPATH."""
    ext = os.environ.get("PYPTO_GOLDEN_EXT_DIR") or str(Path(binary).parent.parent / "python")
    env = dict(env, PYTHONPATH=":".join([str(corpus), str(REPO / "pylib"), ext]))
    if hardware:
        env["PYPTO_GOLDEN_SIMULATE"] = "1"
    return env


def run_one(script, corpus, binary, timeout, workroot, seed=None, python=None):
    work, env, multi = prepare(script, corpus, workroot, seed)
    cmd = command(binary, script, multi, python=python)
    if python:
        env = python_env(env, corpus, binary)
    returncode, seconds, peak, timed_out, output = launch(cmd, work, env, timeout)
    simulated = hardware_choice(output)
    if simulated:
        # Its argparse only takes hardware platforms: the hardware command line, simulated.
        cmd = command(binary, script, multi, simulated, python)
        if python:
            env = python_env(env, corpus, binary, simulated)
        returncode, seconds, peak, timed_out, output = launch(cmd, work, env, timeout)
    killed = not timed_out and returncode == -signal.SIGKILL
    verdict = classify(returncode, output, timed_out, killed)
    line = telling_line(output, work) if not timed_out else "no result after %d s" % timeout
    config = corpus / Path(script).parent / "config.py"
    outside = outside_reason(output, config.read_text(errors="replace") if config.is_file() else "") \
        if verdict != "PASS" else ""
    unwritten = unwritten_outputs(output) if verdict == "MISMATCH" else []
    drawn = drawn_seed(output)
    if unwritten:
        # Whether those elements are all that fails: the same run, on the same inputs, with pure Outs zeroed.
        rerun = dict(env, PYPTO_SIM_OUT_INIT="zero", **({"PYPTO_GOLDEN_SEED": drawn} if drawn else {}))
        zeroed = launch(cmd, work, rerun, timeout)
        if classify(zeroed[0], zeroed[4], zeroed[3], False) == "PASS":
            outside = unwritten_reason(unwritten)
    row = Row(script, verdict, seconds, peak, line[:200], outside=outside, multi_device=multi,
              simulated=simulated or "", seed=drawn,
              no_golden=verdict == "PASS" and not re.search(r"^\[RUN\]", output, re.M))
    if verdict == "PASS":
        shutil.rmtree(work, ignore_errors=True)
    else:
        row.line = row.line or "(no output; see %s)" % (work / "output.txt")
    return row


def print_row(row, out):
    note = "  [%s]" % row.note if row.note else ""
    out.write("%-8s %7.1fs %7.0f MiB  %s  %s%s\n" % (row.verdict, row.seconds, row.peak_mib, row.script, row.line,
                                                    note))
    out.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scripts", nargs="*", help="scripts relative to the corpus (default: all runnable)")
    parser.add_argument("--corpus", help="a pypto-lib checkout (default: $PYPTO_GOLDEN_CORPUS, else %s)"
                        % DEFAULT_CORPUS)
    parser.add_argument("--list", help="a file naming the scripts to run, one per line (# comments)")
    parser.add_argument("--bin", help="the pypto-golden executable (default: $PYPTO_GOLDEN_BIN, else build/bin)")
    parser.add_argument("--ranks", choices=("thread", "process"),
                        help="where an L3 program's ranks run (PYPTO_SIM_RANKS for every script)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per script (default 300)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="scripts at a time (default: cores)")
    parser.add_argument("--keep", help="keep every work directory under this folder")
    parser.add_argument("--python", help="run the scripts under this Python (through the extension module "
                        "beside --bin's build tree) instead of under pypto-golden")
    parser.add_argument("--seed", type=int, help="PYPTO_GOLDEN_SEED for every script: the same random inputs "
                        "every run (default: each script draws its own, and a failure names it)")
    args = parser.parse_args(argv)

    if args.ranks:
        os.environ["PYPTO_SIM_RANKS"] = args.ranks
    if args.seed is not None and not 0 <= args.seed < 2**64:
        parser.error("--seed must be an integer from 0 to 2**64 - 1, got %d" % args.seed)
    corpus = corpus_dir(args.corpus)
    if not (corpus / "examples").is_dir() and not (corpus / "models").is_dir():
        parser.error("no pypto-lib checkout at %s (no examples/ or models/); pass --corpus" % corpus)
    # Absolute: each script runs in its own work directory.
    binary = Path(args.bin or os.environ.get("PYPTO_GOLDEN_BIN") or REPO / "build" / "bin" / "pypto-golden").absolute()
    if not os.access(binary, os.X_OK):
        parser.error("pypto-golden executable not found at %s; build it or pass --bin" % binary)
    python = None
    if args.python:
        found = shutil.which(args.python)
        if not found:
            parser.error("--python: no executable Python at %s" % args.python)
        python = str(Path(found).absolute())
    selected = list(args.scripts)
    if args.list:
        for raw in Path(args.list).read_text().splitlines():
            name = raw.split("#", 1)[0].strip()
            if name:
                selected.append(name)
    strict = bool(selected)
    scripts = selected or runnable_scripts(corpus)
    missing = [s for s in scripts if not (corpus / s).is_file()]
    if missing:
        parser.error("not in the corpus %s: %s" % (corpus, ", ".join(missing)))

    workroot = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="pypto-corpus."))
    workroot.mkdir(parents=True, exist_ok=True)
    sys.stdout.write("corpus %s, %d scripts, %d at a time, timeout %g s, %s%s\n"
                     % (corpus, len(scripts), args.jobs, args.timeout,
                        "%s (extension module of %s)" % (python, binary) if python else binary,
                        "" if args.seed is None else ", seed %d" % args.seed))
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for row in pool.map(lambda s: run_one(s, corpus, binary, args.timeout, workroot, args.seed, python),
                            scripts):
            print_row(row, sys.stdout)
            rows.append(row)
    counts = {v: sum(r.verdict == v for r in rows) for v in VERDICTS}
    outside = sum(1 for r in rows if r.verdict != "PASS" and r.outside)
    multi = sum(1 for r in rows if r.verdict != "PASS" and r.multi_device)
    sys.stdout.write("%d scripts: %s (of the failures: %d multi-device, %d for a reason outside pypto-golden)\n"
                     % (len(rows), ", ".join("%d %s" % (counts[v], v) for v in VERDICTS), multi, outside))
    if not args.keep and all(r.verdict == "PASS" for r in rows):
        shutil.rmtree(workroot, ignore_errors=True)
    elif not args.keep:
        sys.stdout.write("work directories of the failures: %s\n" % workroot)
    return 1 if strict and counts["PASS"] != len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
