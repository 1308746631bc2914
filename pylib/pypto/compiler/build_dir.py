"""The build directory: `<$PYPTO_PROG_BUILD_DIR or ./build_output>/<name>_<YYYYMMDD_HHMMSS>`
and atomic writes of its files (a crash never leaves a half-written file)."""

import datetime
import json
import os
import pathlib
import tempfile


def _timestamp():
    return datetime.datetime.now().strftime("%Y%m%d_%H%M%S")


def build_root():
    return pathlib.Path(os.path.abspath(os.environ.get("PYPTO_PROG_BUILD_DIR") or "build_output"))


def create_build_dir(name, explicit=None):
    """A new, empty directory for one compile (`explicit`: RunConfig.save_kernels_dir)."""
    if explicit is not None:
        path = pathlib.Path(os.path.abspath(os.fspath(explicit)))
        path.mkdir(parents=True, exist_ok=True)
        return path
    root = build_root()
    root.mkdir(parents=True, exist_ok=True)
    base = "%s_%s" % (name, _timestamp())
    n = 0
    while True:  # mkdir is the atomic claim: concurrent compiles never share a directory
        path = root / (base if n == 0 else "%s_%d" % (base, n))
        try:
            path.mkdir()
            return path
        except FileExistsError:
            n += 1


def write_text_atomic(path, text):
    path = pathlib.Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json_atomic(path, obj, indent=2):
    write_text_atomic(path, json.dumps(obj, indent=indent, allow_nan=False) + "\n")
