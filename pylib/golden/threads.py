"""Golden CPU threads: PYPTO_GOLDEN_NUM_THREADS (default 16) intra-op threads for torch."""

import os

DEFAULT_GOLDEN_THREADS = 16
MAX_GOLDEN_THREADS = 65536  # torch takes a C int; far past any machine's cores


def golden_thread_count(environ=os.environ):
    raw = environ.get("PYPTO_GOLDEN_NUM_THREADS")
    if raw is None:
        return DEFAULT_GOLDEN_THREADS
    # ASCII digits only: int() would also take "1_0", "+4" and other scripts' digits.
    value = int(raw) if raw.isascii() and raw.isdigit() else 0
    if value <= 0:
        raise ValueError(f"PYPTO_GOLDEN_NUM_THREADS must be a positive integer, got {raw!r}")
    if value > MAX_GOLDEN_THREADS:
        raise ValueError(f"PYPTO_GOLDEN_NUM_THREADS must be at most {MAX_GOLDEN_THREADS}, got {raw!r}")
    return value


def configure_golden_threads(torch, environ=os.environ, native=None):
    """Sets the golden's intra-op threads. With torch's OpenMP backend this goes through the
    native core (same thread count, without rebuilding torch's busy-waiting pthreadpool);
    otherwise through torch.set_num_threads."""
    count = golden_thread_count(environ)
    if native is not None and "OpenMP" in torch.__config__.parallel_info():
        native.set_intraop_threads(count)
    else:
        torch.set_num_threads(count)
