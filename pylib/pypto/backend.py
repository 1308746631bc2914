"""`pypto.backend`: the process-wide backend type of PyPTO's code generators.

PyPTO's meaning (python/bindings/modules/backend.cpp and src/backend/common/backend_config.cpp
of the PyPTO repository): set once per process; setting the same type again is allowed, a
different one is an error until reset_for_testing(). The simulator runs the same program for
either backend, so the setting is only recorded and checked."""

import enum
import threading


class BackendType(enum.Enum):
    Ascend910B = "Ascend910B"  # a2a3
    Ascend950 = "Ascend950"    # a5


_lock = threading.Lock()
_configured = None


def set_backend_type(backend_type):
    global _configured
    if not isinstance(backend_type, BackendType):
        raise TypeError("set_backend_type(): backend_type must be a pypto.backend.BackendType, got %r"
                        % (backend_type,))
    with _lock:
        if _configured is not None and _configured is not backend_type:
            raise RuntimeError("Backend type already set to %s, cannot change to %s"
                               % (_configured.name, backend_type.name))
        _configured = backend_type


def get_backend_type():
    with _lock:
        if _configured is None:
            raise RuntimeError("Backend type not configured. Please call set_backend_type() or use "
                               "compile() with the backend_type parameter.")
        return _configured


def is_backend_configured():
    with _lock:
        return _configured is not None


def reset_for_testing():
    global _configured
    with _lock:
        _configured = None


__all__ = ["BackendType", "set_backend_type", "get_backend_type", "is_backend_configured",
           "reset_for_testing"]
