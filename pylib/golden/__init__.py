"""golden: check PyPTO kernels against PyTorch references (the pypto-golden harness).

Thin over the native core `_pypto_golden`, which is built into the pypto-golden executable
and also ships as an extension module for `python3 kernel.py`.
"""

import torch

# The native core first: it starts the simulator's workers before torch's thread count is set.
from golden.native import native
from golden.seeding import apply_seed
from golden.threads import configure_golden_threads

configure_golden_threads(torch, native=native)
apply_seed(torch)

from golden.errors import (  # noqa: E402
    ArgumentError,
    ArtifactError,
    DeviceUnavailableError,
    GoldenError,
    KernelError,
    ProgramError,
    ReportError,
    SpecArgumentError,
    SpecArgumentMismatchError,
    SpecError,
)
from golden.bench import BenchStats  # noqa: E402
from golden.result import RunResult  # noqa: E402
from golden.runner import run, run_jit  # noqa: E402
from golden.script import exit_on_failure, parse_kernel_args  # noqa: E402
from golden.spec import ScalarSpec, TensorSpec  # noqa: E402
from golden.validation import (  # noqa: E402
    error_distribution,
    mapped_pool_ratio_allclose,
    ratio_allclose,
    ratio_reldiff,
    topk_pair_compare,
    validate_golden,
)

__version__ = native.__version__

__all__ = [
    "ArgumentError",
    "ArtifactError",
    "BenchStats",
    "DeviceUnavailableError",
    "GoldenError",
    "KernelError",
    "ProgramError",
    "ReportError",
    "RunResult",
    "ScalarSpec",
    "SpecArgumentError",
    "SpecArgumentMismatchError",
    "SpecError",
    "TensorSpec",
    "error_distribution",
    "exit_on_failure",
    "mapped_pool_ratio_allclose",
    "parse_kernel_args",
    "ratio_allclose",
    "ratio_reldiff",
    "run",
    "run_jit",
    "topk_pair_compare",
    "validate_golden",
]
