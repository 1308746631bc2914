"""`pypto.ir.distributed_compiled_program`: where PyPTO's scripts import DistributedConfig from
(the L3 config of RunConfig(distributed_config=...) and of compile_cfg=dict(...))."""

from pypto.runtime.run_config import DistributedConfig

__all__ = ["DistributedConfig"]
