"""PYPTO_GOLDEN_SEED (pypto-golden --seed N): one seed for a script's random inputs.

Applied once per process, before the script's first random call: pypto-golden imports
golden before running the script when the variable is set; under python3 it takes effect
at `import golden`. It seeds torch's global generator (which TensorSpec's torch.randn /
torch.rand and most init callables draw from) and Python's `random`.
"""

import os
import random

SEED_LIMIT = 2**64  # torch.manual_seed takes 0 .. 2**64 - 1

_applied = False


def seed_from_env(environ=os.environ):
    """The seed PYPTO_GOLDEN_SEED asks for, or None when it is unset."""
    raw = environ.get("PYPTO_GOLDEN_SEED")
    if raw is None:
        return None
    # ASCII digits only: int() would also take "1_0", "+4" and other scripts' digits.
    value = int(raw) if raw.isascii() and raw.isdigit() else -1
    if not 0 <= value < SEED_LIMIT:
        raise ValueError(f"PYPTO_GOLDEN_SEED must be an integer from 0 to 2**64 - 1, got {raw!r}")
    return value


def apply_seed(torch, environ=os.environ):
    """Seeds torch and random from PYPTO_GOLDEN_SEED, once per process."""
    global _applied
    if _applied:
        return
    seed = seed_from_env(environ)
    _applied = True
    if seed is not None:
        torch.manual_seed(seed)
        random.seed(seed)
