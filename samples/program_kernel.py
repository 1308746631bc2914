"""program_kernel: y = x * s + res, written as a @pl.program (an orchestration function
dispatching an InCore function per row block).

Run on the simulator:
    pypto-golden samples/program_kernel.py -p a2a3sim -d 0
"""

import torch

import pypto.language as pl
from golden import ScalarSpec, TensorSpec, exit_on_failure, parse_kernel_args, run

ROWS, COLS = 512, 256
ROW_TILE = 64


@pl.program
class ScaledResidual:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_add(
        self,
        x: pl.Tensor[[ROW_TILE, COLS], pl.FP32],
        res: pl.Tensor[[ROW_TILE, COLS], pl.FP32],
        s: pl.Scalar[pl.FP32],
        out: pl.Out[pl.Tensor[[ROW_TILE, COLS], pl.FP32]],
    ):
        out[:, :] = pl.add(pl.mul(x, s), res)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        res: pl.Tensor[[ROWS, COLS], pl.FP32],
        s: pl.Scalar[pl.FP32],
        y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ):
        for r in pl.parallel(0, ROWS, ROW_TILE):
            y_blk = y[r : r + ROW_TILE, :]
            y_blk = self.scale_add(x[r : r + ROW_TILE, :], res[r : r + ROW_TILE, :], s, y_blk)
        return y


def build_specs():
    return [
        TensorSpec("x", [ROWS, COLS], torch.float32, init_value=torch.randn),
        TensorSpec("res", [ROWS, COLS], torch.float32, init_value=torch.randn),
        ScalarSpec("s", torch.float32, 0.25),
        TensorSpec("y", [ROWS, COLS], torch.float32),
    ]


def golden_scaled_residual(values):
    values["y"][:] = values["x"] * values["s"] + values["res"]



def main(golden_fn=golden_scaled_residual):
    args = parse_kernel_args(__doc__)
    torch.manual_seed(0)
    result = run(
        fn=ScaledResidual,
        specs=build_specs(),
        golden_fn=golden_fn,
        config={"platform": args.platform, "device_id": args.device},
        rtol=1e-5,
        atol=1e-5,
    )
    exit_on_failure(result)


if __name__ == "__main__":
    main()
