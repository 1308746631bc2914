"""--junit FILE / PYPTO_GOLDEN_JUNIT: every golden.run of a script lands in FILE as JUnit XML
(a testsuite per script, a testcase per run and per validated output), several scripts add
to one file, and the file validates against Jenkins' JUnit schema (junit-10.xsd, which
.ci/setup fetches from pytest's source distribution)."""

import json
import os
import random
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import BUILD, HOST_BIN, PYTHON, REPO, SAMPLES, clean_env
from kernel_scripts import write_kernel_script

SCHEMA = Path(os.environ.get("PYPTO_GOLDEN_JUNIT_XSD", REPO / ".venv" / "share" / "pypto-golden" / "junit-10.xsd"))


def validate(path):
    """The document of `path`, after checking it against the JUnit schema."""
    if SCHEMA.is_file():
        xmlschema = pytest.importorskip("xmlschema")
        xmlschema.XMLSchema(str(SCHEMA)).validate(str(path))
    return ET.parse(path).getroot()


def counts(element):
    return {k: element.get(k) for k in ("tests", "failures", "errors")}


def test_the_schema_is_there_to_validate_against():
    # .ci/setup puts it there; without it the other tests check structure only.
    assert SCHEMA.is_file(), "no JUnit schema at %s: run .ci/setup" % SCHEMA


def test_two_scripts_one_file_a_suite_each(tmp_path, host):
    report = tmp_path / "reports" / "junit.xml"
    assert host("--junit", report, SAMPLES / "hello_world.py", "-p", "a2a3sim").returncode == 0
    assert host("--junit", report, SAMPLES / "hello_world_broken.py", "-p", "a2a3sim").returncode == 1
    root = validate(report)
    assert root.tag == "testsuites" and counts(root) == {"tests": "4", "failures": "2", "errors": "0"}
    ok, broken = root.findall("testsuite")
    assert (ok.get("name"), broken.get("name")) == ("hello_world.py", "hello_world_broken.py")
    assert counts(ok) == {"tests": "2", "failures": "0", "errors": "0"}
    assert [(c.get("classname"), c.get("name")) for c in ok.findall("testcase")] == [
        ("hello_world", "hello_world"), ("hello_world.hello_world", "y")]
    run_case = ok.find("testcase")
    log = run_case.find("system-out").text
    assert log.startswith("kernel hello_world on a2a3sim\ncompile done (")
    assert "\nruntime done (" in log and "\nwork_dir: " in log
    assert float(run_case.get("time")) > 0
    run_fail, y_fail = broken.findall("testcase")
    assert run_fail.find("failure").get("type") == "mismatch"
    assert run_fail.find("failure").get("message") == "Output(s) does not match golden: ['y']"
    assert y_fail.find("failure").get("type") == "allclose"
    assert y_fail.find("failure").text.startswith(
        "'y' does not match golden (allclose)\n  'y' FAIL  shape=(1024, 512) dtype=torch.float32\n"
        "    Mismatched elements: 524288/524288")


RUNS_MAIN = """
import golden as harness
finish(run(fn=add_kernel, specs=specs(), golden_fn=golden, config={"platform": "a2a3sim"}))
try:
    run(fn=add_kernel, specs=specs()[:2], golden_fn=golden, config={"platform": "a2a3sim"})
except harness.SpecError as e:
    print("raised", type(e).__name__)
finish(run(fn=add_kernel, specs=specs(), golden_fn=None, config={"platform": "a2a3sim"}))
"""


def test_every_run_of_a_script_is_a_testcase_of_its_suite(tmp_path, host):
    script = write_kernel_script(tmp_path, main=RUNS_MAIN, name="three_runs.py")
    report = tmp_path / "junit.xml"
    proc = host("--junit", report, script)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (suite,) = validate(report).findall("testsuite")
    assert counts(suite) == {"tests": "4", "failures": "0", "errors": "1"}
    cases = suite.findall("testcase")
    # A kernel run again is named with its count; the run that raised is an error with the
    # exception the script caught.
    assert [c.get("name") for c in cases] == ["add_kernel", "y", "add_kernel #2", "add_kernel #3"]
    error = cases[2].find("error")
    assert error.get("type") == "SpecError"
    assert error.get("message") == error.text == (
        "specs do not match the parameters of kernel 'add_kernel': the kernel takes 3 parameters, the specs give 2 "
        "(kernel [x, a, y], specs [x, a]); list the specs in the kernel's parameter order")
    assert "validation skipped: no golden_fn or golden_data" in cases[3].find("system-out").text


def test_python3_takes_the_environment_variable(tmp_path):
    script = write_kernel_script(tmp_path, name="plain.py")
    report = tmp_path / "from_python.xml"
    env = clean_env(tmp_path, PYTHONPATH=f"{REPO / 'pylib'}:{BUILD / 'python'}", PYPTO_GOLDEN_JUNIT=report)
    proc = subprocess.run([PYTHON, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (suite,) = validate(report).findall("testsuite")
    assert suite.get("name") == "plain.py" and counts(suite) == {"tests": "2", "failures": "0", "errors": "0"}


def test_a_file_it_did_not_write_is_refused_and_kept(tmp_path, host):
    report = tmp_path / "other.xml"
    report.write_text("<results>someone else's</results>\n")
    proc = host("--junit", report, SAMPLES / "hello_world.py", "-p", "a2a3sim")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        "golden.ReportError: --junit: %s is not a JUnit XML document (no <testsuites> root written by "
        "pypto-golden); pypto-golden adds only to JUnit files it wrote itself: remove it or name another file"
        % report)
    assert "[RUN] PASS" in proc.stdout  # the run's own verdict was printed before
    assert report.read_text() == "<results>someone else's</results>\n"


def test_four_scripts_writing_one_file_at_once_lose_nothing(tmp_path):
    report = tmp_path / "junit.xml"
    scripts = [write_kernel_script(tmp_path, name="k%d.py" % i) for i in range(4)]
    procs = [subprocess.Popen([str(HOST_BIN), "--junit", str(report), str(s)], cwd=tmp_path, env=clean_env(tmp_path),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for s in scripts]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    root = validate(report)
    assert sorted(s.get("name") for s in root.findall("testsuite")) == ["k0.py", "k1.py", "k2.py", "k3.py"]
    assert counts(root) == {"tests": "8", "failures": "0", "errors": "0"}


LOOP_MAIN = """
for _ in range(400):
    run(fn=add_kernel, specs=specs(), golden_fn=golden,
        config={"platform": "a2a3sim", "enable_chip_swimlane": 4, "enable_scope_stats": True,
                "enable_dep_gen": True, "enable_dump_args": 2})
"""


def test_sigkill_leaves_the_junit_html_and_dfx_files_whole(tmp_path):
    # Runs that write their JUnit testcases and DFX files one after another, killed at random
    # moments: every file left behind parses (a rename replaced it whole, or it is absent).
    import torch

    script = write_kernel_script(tmp_path, main=LOOP_MAIN, name="loop.py")
    report = tmp_path / "junit.xml"
    rng = random.Random(99)
    for _ in range(4):
        proc = subprocess.Popen([str(HOST_BIN), "--junit", str(report), "--report", "html", str(script)], cwd=tmp_path,
                                env=clean_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in proc.stdout:
            if line.startswith("[RUN] PASS"):  # the first run is in the file
                break
        time.sleep(rng.uniform(0.0, 1.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    suites = validate(report).findall("testsuite")
    assert len(suites) == 4 and all(int(s.get("tests")) >= 2 for s in suites)
    dfx_files = list((tmp_path / "build_output").rglob("dfx_outputs/**/*.json"))
    assert dfx_files
    for path in dfx_files:
        json.loads(path.read_text())
    for path in (tmp_path / "build_output").rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            json.loads(line)
    page = (tmp_path / "html" / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    for path in (tmp_path / "build_output").rglob("deps.dot"):
        assert path.read_text().endswith("}\n")
    dumps = list((tmp_path / "build_output").rglob("args_dump/*.pt"))
    assert dumps
    for path in dumps:
        assert torch.load(path, weights_only=True).shape == (16, 32)
