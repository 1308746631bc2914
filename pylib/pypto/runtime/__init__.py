"""`pypto.runtime`: run configuration for compiling and dispatching kernels."""

from pypto.runtime.pto_isa import ensure_pto_isa_root, pto_isa_include_dir  # noqa: F401
from pypto.runtime.run_config import (  # noqa: F401
    RunConfig, DistributedConfig, OptimizationStrategy, PLATFORMS, backend_for,
)
from pypto.runtime.tensor_spec import TensorSpec  # noqa: F401


def __getattr__(name):
    # Imported on first use: they need torch, which `import pypto.runtime` does not.
    if name == "DistributedWorker":
        from pypto.runtime.distributed_worker import DistributedWorker
        return DistributedWorker
    if name in ("DeviceTensor", "StackedDeviceTensor"):
        from pypto.runtime import device_tensor
        return getattr(device_tensor, name)
    raise AttributeError("module 'pypto.runtime' has no attribute %r" % name)
