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
        """The tensor init_value describes: None zeros, a number filled, a tensor converted,
        torch.randn/rand/zeros/ones called with the shape, another callable's result."""
        import torch  # lazy: `import pypto.runtime` must stay cheap
        init = self.init_value
        if init is None:
            return torch.zeros(self.shape, dtype=self.dtype)
        if isinstance(init, (int, float)):
            return torch.full(self.shape, init, dtype=self.dtype)
        if isinstance(init, torch.Tensor):
            return init.to(dtype=self.dtype)
        if callable(init):
            if init in (torch.randn, torch.rand, torch.zeros, torch.ones):
                return init(self.shape, dtype=self.dtype)
            return torch.as_tensor(init(), dtype=self.dtype)
        raise TypeError(f"Unsupported init_value type {type(init)!r} for tensor {self.name!r}")
