"""The build directory: `<$PYPTO_PROG_BUILD_DIR or ./build_output>/<name>_<YYYYMMDD_HHMMSS>`
and atomic writes of its files (a crash never leaves a half-written file)."""

import datetime
import errno
import json
import os
import pathlib
import tempfile


class BuildDirectoryError(OSError):
    """A build directory or one of its files cannot be made: the message names the path,
    where it came from and the system's reason (read-only, full, not a directory, ...)."""

    def __init__(self, code, message):
        super().__init__(message)  # one argument: str() is the message, without "[Errno N]"
        self.errno = code


def _reason(error):
    if isinstance(error, (FileExistsError, NotADirectoryError)) or error.errno in (errno.EEXIST, errno.ENOTDIR):
        return "a file is in the way where a directory must be"
    return os.strerror(error.errno) if error.errno else str(error)


def _timestamp():
    return datetime.datetime.now().strftime("%Y%m%d_%H%M%S")


def build_root():
    return pathlib.Path(os.path.abspath(os.environ.get("PYPTO_PROG_BUILD_DIR") or "build_output"))


def create_build_dir(name, explicit=None):
    """A new, empty directory for one compile (`explicit`: RunConfig.save_kernels_dir)."""
    if explicit is not None:
        path = pathlib.Path(os.path.abspath(os.fspath(explicit)))
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise BuildDirectoryError(e.errno, "cannot create the build directory %s (save_kernels_dir): %s"
                                      % (path, _reason(e))) from None
        return path
    root = build_root()
    origin = "PYPTO_PROG_BUILD_DIR" if os.environ.get("PYPTO_PROG_BUILD_DIR") else "the default build root"
    base = "%s_%s" % (name, _timestamp())
    n = 0
    try:
        root.mkdir(parents=True, exist_ok=True)
        while True:  # mkdir is the atomic claim: concurrent compiles never share a directory
            path = root / (base if n == 0 else "%s_%d" % (base, n))
            try:
                path.mkdir()
                return path
            except FileExistsError:
                if not root.is_dir():
                    raise
                n += 1
    except OSError as e:
        raise BuildDirectoryError(e.errno, "cannot create a build directory in %s (%s): %s"
                                  % (root, origin, _reason(e))) from None


def write_text_atomic(path, text):
    path = pathlib.Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    except OSError as e:
        raise BuildDirectoryError(e.errno, "cannot write %s: %s" % (path, _reason(e))) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and not isinstance(e, BuildDirectoryError):
            raise BuildDirectoryError(e.errno, "cannot write %s: %s" % (path, _reason(e))) from None
        raise


def write_json_atomic(path, obj, indent=2):
    write_text_atomic(path, json.dumps(obj, indent=indent, allow_nan=False) + "\n")
