"""`pypto.ir.pass_manager`: PyPTO's pass pipeline. The simulator runs a kernel as written, so
there are no passes: the strategy enum exists (RunConfig takes it), running passes does not."""

from pypto.runtime.run_config import OptimizationStrategy  # noqa: F401


class PassManager:
    @classmethod
    def get_strategy(cls, strategy=OptimizationStrategy.Default):
        raise NotImplementedError(
            "pypto.ir.pass_manager.PassManager: pypto-golden runs no PyPTO pass pipeline; its "
            "frontend translates a kernel straight into a simulator program (lower a kernel "
            "with PyPTO itself to inspect its passes).")
