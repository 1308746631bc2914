"""--report DIR / PYPTO_GOLDEN_REPORT: one self-contained report.html per script process with
every golden.run: stages, verdicts with gate and tolerance, and for a failing output a heatmap
of |actual - expected| (worst element framed, never-written elements grey) and a histogram;
the benchmark's distribution and the chip swimlane. The page is rendered in headless Chromium
(Debian's chromium, installed by .ci/setup), which must show every picture drawn."""

import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import SAMPLES, clean_env
from kernel_scripts import write_kernel_script

TWO_RUNS = """
def wrong_golden(values):
    golden(values)
    values["y"][40, 5] += 1.5  # float32 rounding keeps |diff| within 1e0's decade whatever the input


first = run(fn=add_kernel, specs=specs(), golden_fn=wrong_golden,
            config={"platform": "a2a3sim", "enable_chip_swimlane": 1})
second = run(fn=add_kernel, specs=specs(), golden_fn=golden, config={"platform": "a2a3sim"})
print("verdicts", first.passed, second.passed)
"""

DATA = re.compile(r'<script type="application/json" id="pypto-golden-data">(.*?)</script>', re.S)


def browser():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: .ci/setup installs Debian's chromium for this test")
    return path


def rendered_body(page):
    """The <body> tag of `page` after Chromium ran its script. The browser is not ours: the
    sanitizer build's preloaded ASan runtime is kept out of it (Chromium hangs under it)."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith(("ASAN_", "LSAN_", "UBSAN_"))}
    proc = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def embedded(page):
    return json.loads(DATA.search(page.read_text()).group(1).replace("<\\/", "</"))


def test_report_of_a_failing_and_a_passing_run(tmp_path, host):
    script = write_kernel_script(tmp_path, main=TWO_RUNS)
    env = clean_env(tmp_path, PYPTO_BENCH="1", PYPTO_BENCH_ROUNDS="12")
    proc = host("--report", "out", str(script), env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdicts False True" in proc.stdout
    page = tmp_path / "out" / "report.html"
    text = page.read_text()
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text  # nothing fetched
    assert '<h1>kernel.py</h1>' in text and "2 runs, 1 passed" in text
    assert text.count('<section class="run fail"') == 1 and text.count('<section class="run pass"') == 1
    for stage in ("compile", "generate inputs", "compute golden", "runtime", "benchmark", "validate"):
        assert f"<tr><td>{stage}</td><td>done</td>" in text
    assert ('<tr><td>y</td><td class="FAIL">FAIL</td><td>allclose</td><td>rtol=1e-05, atol=1e-05</td>'
            "<td>shape=(64, 32) dtype=torch.float32</td></tr>") in text
    assert "|actual &minus; expected| over y[:, :] (64 &times; 32)" in text
    assert re.search(r"<tr><td>y\[40, 5\]</td><td class=\"num\">[-0-9.e]+</td><td class=\"num\">[-0-9.e]+</td>"
                     r"<td class=\"num\">1.5</td></tr>", text)
    assert "12 timed dispatches" in text and "4 tasks by device and worker" in text

    runs = embedded(page)["runs"]
    picture = runs[0]["outputs"][0]["picture"]
    assert (picture["grid_rows"], picture["grid_cols"], picture["cell_rows"], picture["cell_cols"]) == (64, 32, 1, 1)
    assert picture["worst_cell"] == [40, 5] and picture["unwritten"] == []
    assert [k for k, v in enumerate(picture["max_diff"]) if v != 0] == [40 * 32 + 5]
    assert picture["exact"] == 64 * 32 - 1 and picture["nonfinite"] == 0
    assert picture["decades"][12] == 1 and sum(picture["decades"]) == 1  # |diff| ~ 1.5: the decade 1e0
    assert "picture" not in runs[1]["outputs"][0] and len(runs[1]["bench_us"]) == 12

    body = re.search(r"<body[^>]*>", rendered_body(page)).group(0)
    # A heatmap and a histogram for the failing output, two benchmark charts, one swimlane.
    assert 'data-pictures="5"' in body and 'data-drawn="5"' in body


UNWRITTEN = """
result = run(fn=add_kernel, specs=specs(), golden_fn=golden, config={"platform": "a2a3sim"})
print("passed", result.passed)
"""


def test_never_written_elements_are_marked(tmp_path, host):
    script = write_kernel_script(tmp_path, main=UNWRITTEN)
    # The kernel writes rows 0..48 of its pure Out y only.
    script.write_text(script.read_text().replace("pl.parallel(0, ROWS, 16)", "pl.parallel(0, 48, 16)"))
    proc = host(str(script), env=clean_env(tmp_path, PYPTO_GOLDEN_REPORT=str(tmp_path / "r")), cwd=tmp_path)
    assert proc.returncode == 0 and "passed False" in proc.stdout, proc.stdout + proc.stderr
    page = tmp_path / "r" / "report.html"
    picture = embedded(page)["runs"][0]["outputs"][0]["picture"]
    assert picture["unwritten"] == [0] * (48 * 32) + [1] * (16 * 32)
    assert picture["max_diff"][48 * 32:] == [None] * (16 * 32)  # NaN poison against a value: not finite
    assert picture["nonfinite"] == 16 * 32 and picture["worst_cell"][0] >= 48
    assert "grey: never written by the kernel" in page.read_text()
    body = re.search(r"<body[^>]*>", rendered_body(page)).group(0)
    assert 'data-pictures="2"' in body and 'data-drawn="2"' in body


def test_a_foreign_report_html_is_kept(tmp_path, host):
    script = write_kernel_script(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.html").write_text("<html>someone else's</html>")
    proc = host("--report", "out", str(script), env=clean_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        f"golden.ReportError: --report: {tmp_path / 'out' / 'report.html'} is not a report pypto-golden wrote; "
        "it is kept: choose another directory or remove it")
    assert "[RUN] PASS" in proc.stdout
    assert (tmp_path / "out" / "report.html").read_text() == "<html>someone else's</html>"


def test_the_broken_sample_renders_with_its_heatmap(tmp_path, host):
    proc = host("--report", str(tmp_path / "r"), str(SAMPLES / "hello_world_broken.py"), "-p", "a2a3sim",
                env=clean_env(tmp_path))
    assert proc.returncode == 1
    page = tmp_path / "r" / "report.html"
    picture = embedded(page)["runs"][0]["outputs"][0]["picture"]
    # y is [1024, 512]: pooled to 94 x 86 cells of 11 x 6 elements; every element differs by 2a.
    assert (picture["cell_rows"], picture["cell_cols"], picture["grid_rows"], picture["grid_cols"]) == (11, 6, 94, 86)
    assert picture["exact"] == 0 and all(v is not None and v > 0 for v in picture["max_diff"])
    dom = rendered_body(page)
    heatmap = re.search(r'<canvas data-kind="heatmap"[^>]*>', dom).group(0)
    pixels = int(re.search(r'data-pixels="(\d+)"', heatmap).group(1))
    width, height = (int(re.search(rf'{side}="(\d+)"', heatmap).group(1)) for side in ("width", "height"))
    assert pixels == width * height  # every cell painted
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-pictures="2"' in body and 'data-drawn="2"' in body
