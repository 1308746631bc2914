"""PyPTO data types: singleton objects whose str() is the PyPTO name (`fp32`, `bfloat16`,
...: the dtype names of host/sim/IR.md)."""


class DataType:
    """One PyPTO dtype. Compared by identity: each name exists exactly once."""

    __slots__ = ("name", "const_name", "bits", "_torch_name", "torch_since")

    def __init__(self, name, const_name, bits, torch_name, torch_since=None):
        self.name = name              # PyPTO spelling, e.g. "bfloat16"
        self.const_name = const_name  # attribute on `pl`, e.g. "BF16"
        self.bits = bits
        self._torch_name = torch_name
        # The first torch with this dtype, where a kernel cannot do without it (no widened
        # storage stands in for it); None: every supported torch has it, or none needs it.
        self.torch_since = torch_since

    def __str__(self):
        return self.name

    def __repr__(self):
        return "pl." + self.const_name

    def get_byte(self):
        return max(1, self.bits // 8)

    @property
    def is_float(self):
        return self.name in ("fp32", "fp16", "bfloat16", "fp8e4m3fn", "fp8e5m2", "fp8e8m0")

    def to_torch(self):
        """The torch dtype, or None where torch has no such type (e.g. uint32 in torch 1.13)."""
        if self._torch_name is None:
            return None
        import torch  # lazy: `import pypto.language` must stay cheap
        return getattr(torch, self._torch_name, None)

    def missing_from_torch(self):
        """Why the installed torch cannot hold this dtype ("" when it can)."""
        if self.torch_since is None or self.to_torch() is not None:
            return ""
        import torch
        return ("pl.%s needs torch.%s, which torch %s does not have (torch >= %s has it)"
                % (self.const_name, self._torch_name, torch.__version__, self.torch_since))


FP32 = DataType("fp32", "FP32", 32, "float32")
FP16 = DataType("fp16", "FP16", 16, "float16")
BF16 = DataType("bfloat16", "BF16", 16, "bfloat16")
INT8 = DataType("int8", "INT8", 8, "int8")
INT16 = DataType("int16", "INT16", 16, "int16")
INT32 = DataType("int32", "INT32", 32, "int32")
INT64 = DataType("int64", "INT64", 64, "int64")
FP8E4M3FN = DataType("fp8e4m3fn", "FP8E4M3FN", 8, "float8_e4m3fn", torch_since="2.1")
FP8E5M2 = DataType("fp8e5m2", "FP8E5M2", 8, "float8_e5m2", torch_since="2.1")
FP8E8M0 = DataType("fp8e8m0", "FP8E8M0", 8, "float8_e8m0fnu", torch_since="2.7")
UINT8 = DataType("uint8", "UINT8", 8, "uint8")
UINT16 = DataType("uint16", "UINT16", 16, "uint16")
UINT32 = DataType("uint32", "UINT32", 32, "uint32")
UINT64 = DataType("uint64", "UINT64", 64, "uint64")
BOOL = DataType("bool", "BOOL", 8, "bool")
INDEX = DataType("index", "INDEX", 64, None)  # scalars only: loop variables and dims
# The id of a submitted task (`with pl.at(...) as tid`, pl.system.task_dummy): an opaque
# scalar that only feeds deps= lists and TASK_ID arrays; no tensor holds it.
TASK_ID = DataType("task_id", "TASK_ID", 64, None)

ALL_DTYPES = (FP32, FP16, BF16, FP8E4M3FN, FP8E5M2, FP8E8M0, INT8, INT16, INT32, INT64,
              UINT8, UINT16, UINT32, UINT64, BOOL, INDEX, TASK_ID)
BY_NAME = {d.name: d for d in ALL_DTYPES}


def from_torch(torch_dtype):
    """The PyPTO dtype of a torch dtype, or None when PyPTO has none for it."""
    for d in ALL_DTYPES:
        if d.to_torch() is torch_dtype and torch_dtype is not None:
            return d
    return None
