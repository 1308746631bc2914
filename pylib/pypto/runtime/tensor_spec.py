"""`pypto.runtime.TensorSpec`: PyPTO's own tensor description (name, shape, dtype, init_value,
is_output), which older scripts hand to golden.run in place of golden.TensorSpec; the harness
reads the same fields from either."""

from dataclasses import dataclass, field
from typing import Any, List


@dataclass
class TensorSpec:
    name: str
    shape: List[int]
    dtype: Any  # a torch.dtype
    init_value: Any = field(default=None)
    is_output: bool = False

    def create_tensor(self):
        return tensor_from_init(self.name, self.shape, self.dtype, self.init_value)


def tensor_from_init(name, shape, dtype, init):
    """The tensor an init_value describes, as PyPTO's TensorSpec.create_tensor makes it (also
    golden.TensorSpec's): None zeros, a number filled, a tensor converted (the same object when
    it has the dtype), torch.randn/rand/zeros/ones called with the shape, another callable's
    result converted."""
    import torch  # lazy: `import pypto.runtime` must stay cheap
    if init is None:
        return torch.zeros(shape, dtype=dtype)
    if isinstance(init, (int, float)):
        return torch.full(shape, init, dtype=dtype)
    if isinstance(init, torch.Tensor):
        return init.to(dtype=dtype)
    if callable(init):
        if init in (torch.randn, torch.rand):
            if dtype.itemsize == 1 and dtype.is_floating_point:
                # torch has no random kernels for the 8-bit floats: draw in float32 and round.
                return init(shape, dtype=torch.float32).to(dtype)
            return init(shape, dtype=dtype)
        if init in (torch.zeros, torch.ones):
            return init(shape, dtype=dtype)
        return torch.as_tensor(init(), dtype=dtype)
    raise TypeError(f"Unsupported init_value type {type(init)!r} for tensor {name!r}")
