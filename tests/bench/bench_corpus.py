"""Corpus scripts that pass: the simulator's runtime stage against the golden stage of the
same run, and the harness's memory against the bytes of the script's spec tensors. Prints
the figures per script and the summaries; never asserts.

    .venv/bin/python tests/bench/bench_corpus.py [--list FILE] [--corpus DIR] [SCRIPT ...]

Each script (default: tests/corpus/fast_passing.txt) runs twice, as tests/corpus/run_corpus.py
runs it:
- a normal run: its `[RUN] compute golden done (Xs)` and `[RUN] runtime done (Xs)` lines give
  the ratio runtime / golden, and wait4 its peak RSS;
- a run with PYPTO_GOLDEN_MEMORY_LIMIT=1, which the harness refuses before allocating any
  tensor: its message gives the spec tensors' bytes, and its peak RSS what the script holds
  before the run (interpreter, torch, the compiled kernel, the script's own data).
The harness's own memory is the difference of the two peaks. That counts the golden's own
temporaries too (a golden that converts a bf16 weight to fp32 holds twice its bytes), which
are the script's, not the harness's; so a script with one golden.run also runs with
--save-data and then replays that data with --golden-data, which runs no golden: the
replay's peak less the base is the harness's memory alone ("no golden" column). Targets
(issue 12): the geometric mean of runtime / golden <= 1, no script above 3; harness memory
<= 2x the spec tensors' bytes. Runs whose golden takes under 0.05 s are too short to ratio
and are listed without one.
"""

import argparse
import math
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "corpus"))
import run_corpus  # noqa: E402

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
SHORTEST_GOLDEN = 0.05


def stage_seconds(output, stage):
    m = re.search(r"^\[RUN\] %s done \((\d+\.\d+)s\)" % re.escape(stage), output, re.M)
    return float(m.group(1)) if m else None


def spec_bytes(output):
    m = re.search(r"\(([\d.]+) (B|KiB|MiB|GiB|TiB) of In tensors, held once, and ([\d.]+) (B|KiB|MiB|GiB|TiB) "
                  r"of Out / InOut tensors", output)
    return float(m.group(1)) * UNITS[m.group(2)] + float(m.group(3)) * UNITS[m.group(4)] if m else None


def measure(script, corpus, binary, timeout, workroot):
    work, env, multi = run_corpus.prepare(script, corpus, workroot)
    cmd = run_corpus.command(binary, script, multi)
    code, _, peak, timed_out, output = run_corpus.launch(cmd, work, env, timeout)
    if run_corpus.classify(code, output, timed_out, False) != "PASS":
        shutil.rmtree(work, ignore_errors=True)
        return None
    _, _, base_peak, _, refused = run_corpus.launch(cmd, work, dict(env, PYPTO_GOLDEN_MEMORY_LIMIT="1"), timeout)
    replay_peak = None
    code, _, _, _, saving = run_corpus.launch(cmd[:1] + ["--save-data"] + cmd[1:], work, env, timeout)
    saved = re.findall(r"^\[RUN\]   saved: (.*)/out$", saving, re.M)
    if code == 0 and len(saved) == 1:  # one golden.run: its data replays it
        code, _, peak_replay, _, _ = run_corpus.launch(cmd[:1] + ["--golden-data", saved[0]] + cmd[1:], work, env,
                                                       timeout)
        replay_peak = peak_replay if code == 0 else None
    shutil.rmtree(work, ignore_errors=True)
    return {"golden": stage_seconds(output, "compute golden"), "runtime": stage_seconds(output, "runtime"),
            "peak_mib": peak, "base_mib": base_peak, "replay_mib": replay_peak, "spec_bytes": spec_bytes(refused)}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scripts", nargs="*")
    ap.add_argument("--list", default=str(REPO / "tests" / "corpus" / "fast_passing.txt"))
    ap.add_argument("--corpus")
    ap.add_argument("--bin", default=str(REPO / "build" / "bin" / "pypto-golden"))
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args(argv)
    corpus = run_corpus.corpus_dir(args.corpus)
    scripts = args.scripts or [line.split("#")[0].strip() for line in Path(args.list).read_text().splitlines()
                               if line.split("#")[0].strip()]
    ratios, memory, own = [], [], []
    print("%-58s %9s %9s %7s %9s %9s %9s %6s %9s" % ("script", "golden s", "runtime s", "ratio", "peak MiB",
                                                     "base MiB", "spec MiB", "mem x", "no golden"))
    with tempfile.TemporaryDirectory() as workroot:
        for script in scripts:
            m = measure(script, corpus, args.bin, args.timeout, workroot)
            if m is None:
                print("%-58s (does not pass: not measured)" % script)
                continue
            ratio = m["runtime"] / m["golden"] if m["golden"] and m["golden"] >= SHORTEST_GOLDEN else None
            if ratio is not None:
                ratios.append((ratio, script))
            spec_mib = m["spec_bytes"] / (1 << 20) if m["spec_bytes"] else None
            mem = (m["peak_mib"] - m["base_mib"]) / spec_mib if spec_mib else None
            if mem is not None:
                memory.append((mem, script))
            alone = (m["replay_mib"] - m["base_mib"]) / spec_mib if spec_mib and m["replay_mib"] else None
            if alone is not None:
                own.append((alone, script))
            print("%-58s %9.2f %9.2f %7s %9.0f %9.0f %9s %6s %9s" % (
                script, m["golden"] or 0, m["runtime"] or 0, "%.2f" % ratio if ratio is not None else "-",
                m["peak_mib"], m["base_mib"], "%.1f" % spec_mib if spec_mib else "-",
                "%.2f" % mem if mem is not None else "-", "%.2f" % alone if alone is not None else "-"))
    if ratios:
        worst = max(ratios)
        print("runtime / golden: geometric mean %.2f over %d scripts (target <= 1), worst %.2f (%s; target <= 3)"
              % (geomean([r for r, _ in ratios]), len(ratios), worst[0], worst[1]))
    if memory:
        worst = max(memory)
        print("harness memory / spec tensors: worst %.2f (%s; target <= 2)" % worst)
    big = [(x, s) for x, s in own if x is not None]
    if big:
        print("the same without the golden's own temporaries: worst %.2f (%s)" % max(big))


if __name__ == "__main__":
    main()
