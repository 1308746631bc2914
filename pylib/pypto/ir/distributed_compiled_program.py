"""`pypto.ir.distributed_compiled_program`: where PyPTO's scripts import DistributedConfig from
(the L3 config of RunConfig(distributed_config=...) and of compile_cfg=dict(...)) and
DistributedCompiledProgram (an L3 build; from_dir reloads one, prepare() gives a
DistributedWorker)."""

from pypto.jit.distributed_compiled_program import DistributedCompiledProgram
from pypto.runtime.run_config import DistributedConfig

__all__ = ["DistributedCompiledProgram", "DistributedConfig"]
