"""Loads the native core: built into pypto-golden, or the _pypto_golden extension module."""

import importlib.util
import json
import os
import sys

import torch


def _check_extension_torch():
    """Refuses an extension built against another torch than the one this Python imported.

    Loading it anyway would end in an undefined-symbol ImportError (or worse) from inside
    the dynamic loader. The executable checks its own interpreter before the script runs.
    """
    if "_pypto_golden" in sys.builtin_module_names:
        return
    spec = importlib.util.find_spec("_pypto_golden")
    if spec is None or not spec.origin:
        return  # the import below says what is missing
    info_path = os.path.join(os.path.dirname(spec.origin), "_pypto_golden_build.json")
    try:
        with open(info_path, encoding="utf-8") as f:
            built = json.load(f)
    except (OSError, ValueError):
        return
    if built.get("torch_version") != torch.__version__:
        here = os.path.dirname(os.path.realpath(torch.__file__))
        raise ImportError(
            f"the _pypto_golden extension ({spec.origin}) was built against torch "
            f"{built.get('torch_version')} ({built.get('torch_dir')}), but this Python "
            f"({sys.executable}) imports torch {torch.__version__} from {here}; run with the "
            f"interpreter it was built with ({built.get('python')}) or rebuild it: "
            f"cmake -B build -DPython3_EXECUTABLE={sys.executable}"
        )


_check_extension_torch()

try:
    import _pypto_golden as native
except ImportError as exc:  # pragma: no cover - depends on how the user set up paths
    raise ImportError(
        "golden needs its native core, the _pypto_golden module: run the script with "
        "pypto-golden, or build with CMake and put <build>/python on PYTHONPATH "
        f"(or install with cmake --install). Import failed with: {exc}"
    ) from exc

__all__ = ["native"]
