"""PyPTO data types: singleton objects whose str() is the PyPTO name (pl-subset §6)."""


class DataType:
    """One PyPTO dtype. Compared by identity: each name exists exactly once."""

    __slots__ = ("name", "const_name", "bits", "_torch_name")

    def __init__(self, name, const_name, bits, torch_name):
        self.name = name              # PyPTO spelling, e.g. "bfloat16"
        self.const_name = const_name  # attribute on `pl`, e.g. "BF16"
        self.bits = bits
        self._torch_name = torch_name

    def __str__(self):
        return self.name

    def __repr__(self):
        return "pl." + self.const_name

    def get_byte(self):
        return max(1, self.bits // 8)

    @property
    def is_float(self):
        return self.name in ("fp32", "fp16", "bfloat16")

    def to_torch(self):
        """The torch dtype, or None where torch has no such type (e.g. uint32 in torch 1.13)."""
        if self._torch_name is None:
            return None
        import torch  # lazy: `import pypto.language` must stay cheap
        return getattr(torch, self._torch_name, None)


FP32 = DataType("fp32", "FP32", 32, "float32")
FP16 = DataType("fp16", "FP16", 16, "float16")
BF16 = DataType("bfloat16", "BF16", 16, "bfloat16")
INT8 = DataType("int8", "INT8", 8, "int8")
INT16 = DataType("int16", "INT16", 16, "int16")
INT32 = DataType("int32", "INT32", 32, "int32")
INT64 = DataType("int64", "INT64", 64, "int64")
UINT8 = DataType("uint8", "UINT8", 8, "uint8")
UINT16 = DataType("uint16", "UINT16", 16, "uint16")
UINT32 = DataType("uint32", "UINT32", 32, "uint32")
UINT64 = DataType("uint64", "UINT64", 64, "uint64")
BOOL = DataType("bool", "BOOL", 8, "bool")
INDEX = DataType("index", "INDEX", 64, None)  # scalars only: loop variables and dims

ALL_DTYPES = (FP32, FP16, BF16, INT8, INT16, INT32, INT64,
              UINT8, UINT16, UINT32, UINT64, BOOL, INDEX)
BY_NAME = {d.name: d for d in ALL_DTYPES}


def from_torch(torch_dtype):
    """The PyPTO dtype of a torch dtype, or None when PyPTO has none for it."""
    for d in ALL_DTYPES:
        if d.to_torch() is torch_dtype and torch_dtype is not None:
            return d
    return None
