"""TensorSpec and ScalarSpec: the ordered arguments of a kernel.

Directions are not declared here: the harness reads In / Out / InOut from the compiled
artifact and stamps them before any tensor is allocated.
"""

import numbers
from dataclasses import dataclass, field
from typing import Any, List, Optional

import torch

from pypto.runtime.tensor_spec import tensor_from_init

SUPPORTED_SCALAR_DTYPES = [
    torch.int8,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
    torch.float32,
    torch.float16,
    torch.bfloat16,
]
_INT_DTYPES = (torch.int8, torch.int32, torch.int64, torch.uint8)
_FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _check_resident(name, resident):
    # bool before int: True is an int, and resident=True is ambiguous.
    if resident is None or resident is False or resident == "stacked":
        return
    if resident is True:
        raise ValueError(
            f"TensorSpec {name!r}: resident=True is ambiguous; pass an int worker id "
            '(e.g. resident=0 for whole-tensor on card 0) or resident="stacked".'
        )
    if isinstance(resident, numbers.Integral):
        if resident < 0:
            raise ValueError(f"TensorSpec {name!r}: resident worker id must be >= 0, got {resident}.")
        return
    raise ValueError(
        f"TensorSpec {name!r}: resident must be None/False (off), an int worker id (whole-tensor "
        'resident on that card), or "stacked" (leading-dim sharded); got '
        f"{resident!r}."
    )


@dataclass
class TensorSpec:
    """A tensor argument. init_value: None (zeros), a number (filled), a tensor (copied and
    converted), torch.randn/rand/zeros/ones (called with shape and dtype), or another
    callable (its result converted)."""

    name: str
    shape: List[int]
    dtype: torch.dtype
    init_value: Any = None
    # Older scripts: checked against the artifact's direction; a contradiction is a warning.
    is_output: Optional[bool] = None
    resident: Any = None

    def __post_init__(self):
        self.shape = [int(d) for d in self.shape]
        _check_resident(self.name, self.resident)

    @property
    def is_resident(self):
        return self.resident is not None and self.resident is not False

    def create_tensor(self):
        """The tensor this spec describes, as the public harness makes it (scripts call it to
        build their own inputs; golden.run makes its own natively)."""
        return tensor_from_init(self.name, self.shape, self.dtype, self.init_value)


def _coerce_scalar(name, dtype, value):
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise ValueError(f"ScalarSpec {name!r}: value tensor must be 0-dim, got shape {tuple(value.shape)}")
        if value.dtype != dtype:
            raise ValueError(
                f"ScalarSpec {name!r}: value tensor dtype {value.dtype} does not match dtype field {dtype}"
            )
        return value
    kind = type(value).__name__
    if dtype in _INT_DTYPES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"ScalarSpec {name!r} dtype={dtype} requires int value, got {kind}")
        info = torch.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"ScalarSpec {name!r} value {value} out of range for {dtype} [{info.min}, {info.max}]")
    elif dtype is torch.bool:
        if not isinstance(value, bool):
            raise ValueError(f"ScalarSpec {name!r} dtype={dtype} requires bool value, got {kind}")
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"ScalarSpec {name!r} dtype={dtype} requires int or float value, got {kind}")
    return torch.tensor(value, dtype=dtype)


def _check_step(name, dtype, step):
    """benchmark_step: None (off), or a number the scalar's dtype can add each dispatch."""
    if step is None:
        return
    kind = type(step).__name__
    if isinstance(step, bool) or dtype is torch.bool:
        raise ValueError(f"ScalarSpec {name!r}: benchmark_step must be an int or float step for a numeric dtype, "
                         f"got {kind} for {dtype}")
    if dtype in _INT_DTYPES and not isinstance(step, int):
        raise ValueError(f"ScalarSpec {name!r} dtype={dtype} requires an int benchmark_step, got {kind}")
    if not isinstance(step, (int, float)):
        raise ValueError(f"ScalarSpec {name!r} dtype={dtype} requires an int or float benchmark_step, got {kind}")


@dataclass
class ScalarSpec:
    """A scalar argument, stored as a 0-dim tensor of its dtype. compile_runtime=True keeps
    it a runtime parameter of a @pl.jit artifact instead of specialising its value."""

    name: str
    dtype: torch.dtype
    value: Any
    compile_runtime: bool = False
    benchmark_step: Any = field(default=None)

    def __post_init__(self):
        if self.dtype not in SUPPORTED_SCALAR_DTYPES:
            supported = ", ".join(str(d) for d in SUPPORTED_SCALAR_DTYPES)
            raise ValueError(f"ScalarSpec {self.name!r}: unsupported dtype {self.dtype}; expected one of [{supported}]")
        self.value = _coerce_scalar(self.name, self.dtype, self.value)
        _check_step(self.name, self.dtype, self.benchmark_step)

    def to_python(self):
        """The value as the golden sees it (device precision: bf16 0.1 -> 0.10009765625)."""
        return self.value.item()
