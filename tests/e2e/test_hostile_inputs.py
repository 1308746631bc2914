"""The bad-input matrix, second half: hostile artifacts and snapshot files, build roots that
cannot be written, a disk that fills up, runs racing for one build root, goldens that lie,
races exposed by the simulator's shuffle, a run too large for the machine. Every case
asserts its exact message and exit status (test_bad_inputs.py holds the first half)."""

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
import torch

from conftest import HOST_BIN, SAMPLES, clean_env
from kernel_scripts import write_kernel_script

HELLO = SAMPLES / "hello_world.py"
FUZZ_CORPUS = Path(__file__).resolve().parents[1] / "fuzz" / "corpus"
REBUILD = "; recompile the kernel to refresh the build"
RESIM = "; rebuild the kernel with this pypto-golden"


def last(proc):
    """The failure's message: hello_world prints a failed result's error last on stdout; the
    scripts made here let the exception end the script, its message last on stderr."""
    return (proc.stderr or proc.stdout).strip().splitlines()[-1]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """One passing hello_world run with --save-data for the module; returns its work_dir."""
    where = tmp_path_factory.mktemp("pristine")
    proc = subprocess.run([str(HOST_BIN), "--save-data", str(HELLO), "-p", "a2a3sim"], cwd=where,
                          env=clean_env(where), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (work,) = (where / "build_output").iterdir()
    return work


@pytest.fixture
def saved(pristine, tmp_path):
    """This test's own copy of the saved build (its files are damaged by the test)."""
    return Path(shutil.copytree(pristine, tmp_path / "saved" / pristine.name))


def without_time(line):
    return re.sub(r" \(\d+\.\d\ds\)$", "", line)


def sparse_file(path, size):
    """A file of `size` bytes that takes no disk space (all zeros)."""
    with open(path, "wb") as f:
        f.truncate(size)


def replace_with(path, kind):
    """Puts a directory, a FIFO or a 2 GiB file where the file `path` was."""
    path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        sparse_file(path, 2 << 30)


# ---- hostile build sidecars, met on a --runtime-dir replay ----

@pytest.mark.parametrize("sidecar, hint", [("compiled_meta.json", REBUILD), ("sim_program.json", RESIM)],
                         ids=["compiled_meta", "sim_program"])
@pytest.mark.parametrize(
    "kind, problem",
    [
        ("directory", "is a directory, not a file"),
        ("fifo", "is not a regular file (a FIFO, socket or device)"),
        ("2GiB", "is 2.0 GiB, larger than any build writes (at most 256.0 MiB)"),
    ],
    ids=["directory", "fifo", "2GiB"],
)
def test_a_sidecar_that_cannot_be_one_is_refused_before_it_is_read(host, saved, sidecar, hint, kind, problem):
    replace_with(saved / sidecar, kind)
    proc = host("--runtime-dir", saved, HELLO, timeout=60)  # a FIFO must not block the read
    assert proc.returncode == 1
    assert last(proc) == f"runtime_dir is not a usable build: {saved / sidecar} {problem}{hint}"


def damage_json(path, change):
    path.write_text(change(path.read_text()))


def meta_with(**fields):
    return lambda text: json.dumps(dict(json.loads(text), **fields))


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda t: "", "not valid JSON (syntax error at byte 1)"),
        (lambda t: t[:40], "not valid JSON (syntax error at byte 41)"),
        # A fuzz finding: the parser's out_of_range escaped as a raw C++ exception.
        (lambda t: t.replace('"schema": 1', '"schema": 1e400', 1), "not valid JSON (number overflow parsing '1e400')"),
        (lambda t: "[" * 200000 + "]" * 200000, "must hold a JSON object, got an array"),
        (meta_with(params=[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]), "params[0] must be an object, got an array"),
        (meta_with(params={"x": 1}), "params must be a list, got an object"),
        (meta_with(schema=10**30), "schema must be an integer, got number 1e+30"),
        (meta_with(num_return_types="one"), "num_return_types must be an integer, got string 'one'"),
        (lambda t: t.replace('"dtype": "', '"dtype": "' + "a" * 10**6, 1),
         "params[0].dtype '" + "a" * 60 + "...' (1000004 characters) is not a PyPTO dtype"),
        (lambda t: t.replace('"shape": [', '"shape": [99999999999999999999, ', 1),
         "params[0].shape[0] must be an integer >= -1, got number 1e+20"),
        (lambda t: t.replace('"shape": [', '"shape": [-5, ', 1), "params[0].shape[0] must be an integer >= -1, "
                                                                "got integer -5"),
    ],
    ids=["empty", "truncated", "number-overflow", "deep-nesting", "nested-params", "params-object", "huge-schema",
         "wrong-type", "huge-extent", "negative-extent", "huge-string"],
)
def test_a_hostile_compiled_meta(host, saved, change, problem):
    damage_json(saved / "compiled_meta.json", change)
    proc = host("--runtime-dir", saved, HELLO)
    assert proc.returncode == 1
    assert last(proc) == f"runtime_dir is not a usable build: {saved / 'compiled_meta.json'}: {problem}{REBUILD}"


def deeply_nested_statement(text, depth):
    """sim_program.json text whose first statement becomes `depth` nested negations (as text:
    Python's json module cannot write what it is meant to be refused for)."""
    program = json.loads(text)
    first_statement(program)["body"] = "BODY"
    inner = '{"e": "unary", "op": "neg", "operand": ' * depth + '{"e": "const", "dtype": "fp32", "v": 1.0}' + \
        "}" * depth
    return json.dumps(program).replace('"BODY"', '[{"s": "expr", "value": ' + inner + "}]")


def with_program(edit):
    def change(text):
        program = json.loads(text)
        edit(program)
        return json.dumps(program)
    return change


def first_statement(program):
    return program["functions"][0]["body"][0]


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda t: t[:100], "not valid JSON (syntax error at byte 101)"),
        (lambda t: t.replace('"version": 1', '"version": -1e999', 1),
         "not valid JSON (number overflow parsing '-1e999')"),
        (with_program(lambda p: p.update(functions="main")), '"functions" must be a non-empty list'),
        (lambda t: deeply_nested_statement(t, 100000),
         "function 'hello_world': statements and expressions nest deeper than 500 levels"),
        (with_program(lambda p: first_statement(p).update(line="ten")), "function 'hello_world': 'line' must be an "
                                                                        "integer"),
        (with_program(lambda p: first_statement(p).update(var=4294967296)),
         "function 'hello_world': 'slot' is out of range: 4294967296"),
        (with_program(lambda p: p["functions"][0]["params"][0].update(shape=[1e300, 512])),
         "function 'hello_world': 'shape[]' must be a 64-bit integer, got 1e+300"),
        (with_program(lambda p: first_statement(p).update(s="goto", line=7)),
         "function 'hello_world': line 7: unknown statement kind 'goto'"),
        (with_program(lambda p: first_statement(p)["body"][0]["body"][0].update(dumps={"x": 0})),
         "function 'hello_world': 'dumps' must be a list of slots"),
        (with_program(lambda p: first_statement(p)["body"][0]["body"][0].update(dumps=[0, -1])),
         "function 'hello_world': slot -1 is out of range"),
    ],
    ids=["truncated", "number-overflow", "wrong-type", "deep-nesting", "line-not-int", "huge-slot", "huge-extent",
         "unknown-kind", "dumps-not-a-list", "dumps-slot"],
)
def test_a_hostile_sim_program(host, saved, change, problem):
    damage_json(saved / "sim_program.json", change)
    proc = host("--runtime-dir", saved, HELLO)
    assert proc.returncode == 1
    assert last(proc) == f"runtime_dir is not a usable build: {saved / 'sim_program.json'}: {problem}{RESIM}"


# ---- hostile snapshot files, met on a --golden-data replay ----

def archive_with_pickle(path, pickle):
    """A .pt file (torch.save's zip layout, records stored) holding `pickle` as its data."""
    path.unlink()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("x/data.pkl", pickle)
        archive.writestr("x/version", "3\n")


def fuzz_seed(name):
    """Makes the file a copy of a tensor_file fuzz seed (findings and crafted files)."""
    return lambda p: shutil.copyfile(FUZZ_CORPUS / "tensor_file" / name, p)


@pytest.mark.parametrize(
    "make, problem",
    [
        (lambda p: p.write_bytes(b""), "is not a readable torch tensor file (PytorchStreamReader failed reading zip "
                                       "archive: not a ZIP archive)"),
        (lambda p: p.write_bytes(os.urandom(4096)), "is not a readable torch tensor file (PytorchStreamReader failed "
                                                    "reading zip archive: failed finding central directory)"),
        (lambda p: (p.unlink(), sparse_file(p, 2 << 30)), "is not a readable torch tensor file (PytorchStreamReader "
                                                            "failed reading zip archive: failed finding central "
                                                            "directory)"),
        (lambda p: (p.unlink(), p.mkdir()), "is a directory, not a tensor file"),
        (lambda p: (p.unlink(), os.mkfifo(p)), "is not a regular file (a FIFO, socket or device)"),
        (lambda p: torch.save({"x": torch.zeros(2)}, p), "must contain a torch.Tensor, got dict"),
        # A fuzz finding: torch's unpickler zero-fills a string of the claimed length before
        # reading it (1.7 GB and 5 s for this 2 KiB file; gigabytes more with BINUNICODE8).
        (lambda p: archive_with_pickle(p, b"\x80\x02X" + (1500000000).to_bytes(4, "little") + b"abc."),
         "is not a readable torch tensor file (its pickle claims a string of 1500000000 bytes at byte 2 of a "
         "11-byte pickle)"),
        # A fuzz finding: a memo index the unpickler grows its memo table to (2.8 GB).
        (lambda p: archive_with_pickle(p, b"\x80\x02N\x72" + (174417761).to_bytes(4, "little") + b"."),
         "is not a readable torch tensor file (its pickle claims a memo index of 174417761 at byte 3 of a "
         "9-byte pickle)"),
        # A fuzz finding: an UInt1Storage gave a tensor torch itself cannot copy.
        (fuzz_seed("finding-uint1-storage.pt"),
         "is not a readable torch tensor file (its storage is of dtype UInt1, which torch.save never writes in this "
         "form)"),
        # A fuzz finding: a 2-element tensor over an empty storage record, which torch's C++
        # reader accepts (Python's torch.load refuses it) and a copy then reads from address 0.
        (fuzz_seed("finding-storage-record-smaller-than-tensor.pt"),
         "is not a readable torch tensor file (its storage record holds no data for the 2 bytes its tensor of shape "
         "(2,) needs)"),
        # A fuzz finding: a 1.5 KiB archive whose central directory claims a 4 GiB record,
        # which torch's zip reader allocated while opening the archive.
        (fuzz_seed("finding-zip-record-claims-4GB.pt"),
         "is not a readable torch tensor file (its record 'list/.data/serialization_id' claims 4294967295 bytes, "
         "more than the file's 1556)"),
        # A fuzz finding: the same claim, in a directory that only the zip64 end record names
        # (its 32-bit twin damaged), which is the one torch's zip reader goes by.
        (fuzz_seed("finding-zip64-directory-behind-damaged-32bit-end-record.pt"),
         "is not a readable torch tensor file (its record 'list/.data/serialization_id' claims 2617245736 bytes, "
         "more than the file's 1556)"),
        # The same claim behind a stray end signature in the last 21 bytes, which torch's zip
        # reader passes over (too short for an end record).
        (fuzz_seed("crafted-zip-end-signature-in-last-bytes.pt"),
         "is not a readable torch tensor file (its record 'list/.data/serialization_id' claims 4294967295 bytes, "
         "more than the file's 1570)"),
        # A zip64 directory whose offset and size add up past 2**64 and wrap around: torch's
        # zip reader's bound check passes it and allocates its 4 GiB.
        (fuzz_seed("crafted-zip64-directory-offset-wraps-around.pt"),
         "is not a readable torch tensor file (its central directory claims 4294967040 bytes at byte "
         "18446744069414584586, past the file's end at 1605)"),
    ],
    ids=["empty", "random-bytes", "2GiB-of-zeros", "directory", "fifo", "dict", "pickle-claiming-gigabytes",
         "pickle-memo-index", "uint1-storage", "storage-smaller-than-tensor", "zip-record-claiming-gigabytes",
         "zip64-directory-behind-damaged-end-record", "stray-end-signature", "zip64-directory-wrapping-around"],
)
def test_a_hostile_snapshot_file(host, saved, make, problem):
    path = saved / "data/in/x.pt"
    make(path)
    proc = host("--golden-data", saved / "data", HELLO, timeout=60)
    assert proc.returncode == 1
    assert "[RUN] generate inputs failed" in proc.stdout
    assert last(proc) == f"golden_data: {path} {problem}"


# ---- build roots and disks ----

def test_a_build_root_that_is_a_file(host, tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    proc = host(HELLO, env=clean_env(tmp_path, PYPTO_PROG_BUILD_DIR=blocker))
    assert proc.returncode == 1
    assert "[RUN] compile failed" in proc.stdout
    assert last(proc) == (f"pypto.compiler.build_dir.BuildDirectoryError: cannot create a build directory in "
                          f"{blocker} (PYPTO_PROG_BUILD_DIR): a file is in the way where a directory must be")


@pytest.fixture
def small_mount(tmp_path):
    """Mounts a tmpfs at tmp_path/mnt (options given to the factory); unmounts at the end."""
    mounted = []

    def mount(options):
        point = tmp_path / f"mnt{len(mounted)}"
        point.mkdir()
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {proc.stderr.strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_read_only_build_root(host, tmp_path, small_mount):
    root = small_mount("ro,size=1m")
    proc = host(HELLO, env=clean_env(tmp_path, PYPTO_PROG_BUILD_DIR=root))
    assert proc.returncode == 1
    assert last(proc) == (f"pypto.compiler.build_dir.BuildDirectoryError: cannot create a build directory in "
                          f"{root} (PYPTO_PROG_BUILD_DIR): Read-only file system")


def test_a_disk_filling_up_during_save_data_names_the_file_and_leaves_no_part_of_it(host, tmp_path, small_mount):
    # The build's own files fit in 1 MiB; hello_world's 2 MiB input x does not.
    root = small_mount("size=1m")
    proc = host("--save-data", HELLO, env=clean_env(tmp_path, PYPTO_PROG_BUILD_DIR=root))
    assert proc.returncode == 1
    (work,) = root.iterdir()
    assert "[RUN] generate inputs failed" in proc.stdout
    assert last(proc) == f"save_data: cannot write {work / 'data/in/x.pt'}: No space left on device"
    assert f"[RUN]   work_dir: {work}" in proc.stdout.splitlines()  # where the partial run is
    leftovers = sorted(p.name for p in (work / "data").rglob("*"))
    assert leftovers == ["in"]  # no half-written x.pt, no temporary file


def test_two_runs_at_once_into_one_build_root_both_pass_in_their_own_directories(tmp_path):
    env = clean_env(tmp_path)
    procs = [subprocess.Popen([str(HOST_BIN), str(HELLO)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    works = sorted((tmp_path / "build_output").iterdir())
    assert len(works) == 2
    for work in works:
        assert json.loads((work / "compiled_meta.json").read_text())["schema"] == 1


# ---- goldens that do not do what they must ----

def golden_script(tmp_path, body):
    return write_kernel_script(
        tmp_path, main=f"def g(v):\n    {body}\n\nfinish(run(fn=add_kernel, specs=specs(), golden_fn=g))\n")


@pytest.mark.parametrize(
    "body, detail",
    [
        ("v['y'] = torch.zeros(3)", "    shape mismatch: actual (64, 32) vs expected (3,)"),
        ("v['y'] = torch.zeros(64, 32, dtype=torch.float64)",
         "    dtype mismatch: actual torch.float32 vs expected torch.float64"),
    ],
    ids=["wrong-shape", "wrong-dtype"],
)
def test_a_golden_output_of_the_wrong_shape_or_dtype_fails_that_output(host, tmp_path, body, detail):
    proc = host(golden_script(tmp_path, body))
    assert proc.returncode == 1
    assert "[RUN]   'y' FAIL  shape=(64, 32) dtype=torch.float32" in proc.stdout
    assert any(line.startswith(detail) for line in proc.stdout.splitlines()), proc.stdout


def test_a_golden_returning_its_result_is_warned_that_the_return_value_is_ignored(host, tmp_path):
    proc = host(golden_script(tmp_path, "return v['x'] + v['a']"))
    assert proc.returncode == 1  # values['y'] was never filled
    assert ("[RUN]   warning: golden_fn returned <class 'torch.Tensor'>, which is ignored: the outputs are what it "
            "writes into values (values['y'][:] = ...)") in proc.stdout.splitlines()


def test_a_golden_removing_an_output(host, tmp_path):
    proc = host(golden_script(tmp_path, "del v['y']"))
    assert proc.returncode == 1
    assert "[RUN] compute golden failed" in proc.stdout
    assert last(proc) == ("golden.GoldenError: golden_fn removed output 'y' from values; it must fill values['y'] "
                          "with a torch.Tensor")


# ---- a race the simulator's shuffle exposes ----

RACE = """
@pl.jit
def last_writer(x: pl.Tensor[[512, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    for r in pl.parallel(0, 512, 16):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
            y[0:16, :] = x[r : r + 16, :]  # every iteration writes the same rows: a race
    return y


def in_program_order(v):
    v["y"][:] = v["x"][496:512]


rows = torch.arange(512, dtype=torch.float32).repeat_interleave(32).reshape(512, 32)
finish(run(fn=last_writer, specs=[TensorSpec("x", [512, 32], torch.float32, init_value=rows),
                                  TensorSpec("y", [16, 32], torch.float32)], golden_fn=in_program_order))
"""


def test_a_race_between_parallel_iterations_shows_under_shuffle(host, tmp_path):
    script = write_kernel_script(tmp_path, main=RACE)
    in_order = host(script, env=clean_env(tmp_path, PYPTO_SIM_THREADS=1))
    assert in_order.returncode == 0, in_order.stdout + in_order.stderr
    shuffled = host(script, env=clean_env(tmp_path, PYPTO_SIM_THREADS=1, PYPTO_SIM_SHUFFLE=1))
    assert shuffled.returncode == 1
    assert "[RUN]   'y' FAIL  shape=(16, 32) dtype=torch.float32" in shuffled.stdout
    assert "    Mismatched elements: 512/512  rtol=1e-05 atol=1e-05" in shuffled.stdout
    # The shuffle is seeded: the same race shows the same way every run, so it can be debugged.
    again = host(script, env=clean_env(tmp_path, PYPTO_SIM_THREADS=1, PYPTO_SIM_SHUFFLE=1))
    assert mismatch_lines(again.stdout) == mismatch_lines(shuffled.stdout) != []


def mismatch_lines(out):
    return [without_time(line) for line in out.splitlines() if line.startswith("    [")]


# ---- a run too large for the machine ----

def test_a_spec_too_large_for_the_machine_is_refused_before_anything_is_allocated(host, tmp_path):
    script = write_kernel_script(tmp_path)
    huge = script.read_text().replace("ROWS, COLS = 64, 32", "ROWS, COLS = 1 << 20, 1 << 18")
    script.write_text(huge)
    proc = host(script, env=clean_env(tmp_path, PYPTO_GOLDEN_MEMORY_LIMIT="8G"))
    assert proc.returncode == 1
    assert "[RUN] generate inputs failed" in proc.stdout
    assert without_time(last(proc)) == (
        "FAIL: not enough memory for this run: its tensors need at least 3.0 TiB (1.0 TiB of In "
        "tensors, held once, and 1.0 TiB of Out / InOut tensors, held twice: the kernel's result and the golden's) "
        "but 8.0 GiB is available (PYPTO_GOLDEN_MEMORY_LIMIT); the run was not started")


def test_the_memory_check_uses_what_the_machine_has(host, tmp_path):
    script = write_kernel_script(tmp_path)
    script.write_text(script.read_text().replace("ROWS, COLS = 64, 32", "ROWS, COLS = 1 << 20, 1 << 18"))
    proc = host(script)
    assert proc.returncode == 1
    assert last(proc).startswith("FAIL: not enough memory for this run: its tensors need at least 3.0 TiB")
    assert without_time(last(proc)).endswith("is available (MemAvailable in /proc/meminfo); the run was not started")

