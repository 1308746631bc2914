"""Golden CPU threads: PYPTO_GOLDEN_NUM_THREADS (default 16) intra-op threads for torch."""

import os

DEFAULT_GOLDEN_THREADS = 16


def golden_thread_count(environ=os.environ):
    raw = environ.get("PYPTO_GOLDEN_NUM_THREADS")
    if raw is None:
        return DEFAULT_GOLDEN_THREADS
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise ValueError(f"PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got {raw!r}")
    return value


def configure_golden_threads(torch, environ=os.environ):
    torch.set_num_threads(golden_thread_count(environ))
