"""Loads the native core: built into pypto-golden, or the _pypto_golden extension module."""

try:
    import _pypto_golden as native
except ImportError as exc:  # pragma: no cover - depends on how the user set up paths
    raise ImportError(
        "golden needs its native core, the _pypto_golden module: run the script with "
        "pypto-golden, or build with CMake and put <build>/python on PYTHONPATH "
        f"(or install with cmake --install). Import failed with: {exc}"
    ) from exc

__all__ = ["native"]
