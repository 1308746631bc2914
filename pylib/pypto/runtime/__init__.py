"""`pypto.runtime`: run configuration for compiling and dispatching kernels."""

from pypto.runtime.pto_isa import ensure_pto_isa_root, pto_isa_include_dir  # noqa: F401
from pypto.runtime.run_config import (  # noqa: F401
    RunConfig, DistributedConfig, OptimizationStrategy, PLATFORMS, backend_for,
)
from pypto.runtime.tensor_spec import TensorSpec  # noqa: F401
