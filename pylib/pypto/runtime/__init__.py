"""`pypto.runtime`: run configuration for compiling and dispatching kernels."""

from pypto.runtime.run_config import (  # noqa: F401
    RunConfig, DistributedConfig, OptimizationStrategy, PLATFORMS, backend_for,
)
