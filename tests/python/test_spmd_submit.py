"""`out, tid = pl.spmd_submit(self.kernel, *args, core_num=N, deps=[...])`: the kernel runs
once per block as a pl.spmd task, its results name the tensors it wrote, tid names the task;
`self.kernel` is a @pl.program method or, in a @pl.jit function, a module-level
@pl.jit.incore function; located errors for the forms PyPTO rejects."""

import pytest
import torch

import pypto.language as pl
from golden import ScalarSpec, TensorSpec, run
from pypto.compiler import ir_text
from pypto.jit import KernelCompileError
from test_frontend import first_line, line_of, load

N = 32


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))


@pl.jit.incore
def double_blocks(x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
    b = pl.get_block_idx()
    w = N // pl.get_block_num()
    y[b * w:b * w + w] = pl.mul(x[b * w:b * w + w], 2.0)
    return y


@pl.jit.incore
def bump(y: pl.InOut[pl.Tensor[[N], pl.FP32]], z: pl.Out[pl.Tensor[[N], pl.FP32]]):
    b = pl.get_block_idx()
    y = pl.assemble(y, pl.add(y[b * 8:b * 8 + 8], 1.0), [b * 8])
    z[b * 8:b * 8 + 8] = pl.neg(y[b * 8:b * 8 + 8])
    return y, z


@pl.jit
def chain(x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]],
          z: pl.Out[pl.Tensor[[N], pl.FP32]]):
    with pl.manual_scope():
        y, t1 = pl.spmd_submit(self.double_blocks, x, y, core_num=4)  # noqa: F821
        (a, b), t2 = pl.spmd_submit(self.bump, y, z, core_num=4, deps=[t1],  # noqa: F821
                                    sync_start=True, allow_early_resolve=True)
        # Two blocks of 16: reads the z written above through its new name b.
        y, _ = pl.spmd_submit(self.double_blocks, b, a, core_num=2, deps=[t2])  # noqa: F821
    return y, z


def test_results_and_task_ids():
    specs = [TensorSpec("x", [N], torch.float32, init_value=torch.randn),
             TensorSpec("y", [N], torch.float32), TensorSpec("z", [N], torch.float32)]

    def golden(v):
        v["z"][:] = -(v["x"] * 2.0 + 1.0)
        v["y"][:] = v["z"] * 2.0

    result = run(fn=chain, specs=specs, golden_fn=golden)
    assert result.passed, result.error


def test_the_ir_is_a_spmd_loop_per_submit():
    prog = chain.compile(torch.zeros(N), torch.zeros(N), torch.zeros(N))
    lines = [ln.split("|", 1)[1] for ln in ir_text.program_text(prog.program).splitlines()[5:]]
    assert lines == [
        "   t1 = 1:task_id",
        "   for block_idx in spmd(0, 4, 1) as t1 manual:",
        "     at 'double_blocks' manual:",
        "       double_blocks.b = block_idx",
        "       double_blocks.w = 8",
        "       y[double_blocks.b * 8:(double_blocks.b * 8) + 8] = mul(x[double_blocks.b * 8:(double_blocks.b "
        "* 8) + 8], 2.0)",
        "       double_blocks.ret = y",
        "   t2 = 2:task_id",
        "   for block_idx in spmd(0, 4, 1) as t2 deps=[t1] manual:",
        "     bump.y = y",
        "     at 'bump' manual:",
        "       bump.b = block_idx",
        "       bump.y = assemble(bump.y, add(bump.y[bump.b * 8:(bump.b * 8) + 8], 1.0), [bump.b * 8])",
        "       z[bump.b * 8:(bump.b * 8) + 8] = neg(bump.y[bump.b * 8:(bump.b * 8) + 8])",
        "       bump.ret0, bump.ret1 = (bump.y, z)",
        "   a = y",
        "   b = z",
        "   _ = 3:task_id",
        "   for block_idx in spmd(0, 2, 1) as _ deps=[t2] manual:",
        "     at 'double_blocks' manual:",
        "       double_blocks_2.b = block_idx",
        "       double_blocks_2.w = 16",
        "       a[double_blocks_2.b * 16:(double_blocks_2.b * 16) + 16] = mul(b[double_blocks_2.b * 16:"
        "(double_blocks_2.b * 16) + 16], 2.0)",
        "       double_blocks_2.ret = a",
        "   y = a",
        "   return y, z",
    ]


@pl.program
class Launch:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
        b = pl.get_block_idx()
        y[b * 4:b * 4 + 4] = pl.add(x[b * 4:b * 4 + 4], pl.cast(n, pl.FP32))
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[N], pl.FP32]]):
        y, tid = pl.spmd_submit(self.rows, x, n, y, core_num=n)
        return y


def test_a_program_method_with_a_runtime_block_count():
    specs = [TensorSpec("x", [N], torch.float32, init_value=torch.randn),
             ScalarSpec("n", torch.int64, 8),
             TensorSpec("y", [N], torch.float32)]

    def golden(v):
        v["y"][:] = v["x"] + 8.0

    result = run(fn=Launch, specs=specs, golden_fn=golden)
    assert result.passed, result.error


def test_calling_it_from_python_says_how_to_use_it():
    with pytest.raises(RuntimeError, match=r"^pl.spmd_submit\(\) was called from Python"):
        pl.spmd_submit(None, core_num=1)


HEAD = """\
import pypto.language as pl


@pl.jit.incore
def kern(x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]]):
    y[:] = pl.add(x, 1.0)
    return y


@pl.jit.incore
def fresh(x: pl.Tensor[[8], pl.FP32]):
    t = pl.add(x, 1.0)
    return t


@pl.jit.inline
def helper(x, y):
    return y


@pl.jit
def k(x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]], n: pl.Scalar[pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP) as t0:
        pass
"""

USAGE = "`out, tid = pl.spmd_submit(self.kernel, *kernel_args, core_num=N, deps=[...])`"
ERRORS = [
    ("y, t = pl.spmd_submit(self.kern, x, y)",
     "pl.spmd_submit(self.kern, ...) requires the core_num keyword argument (a positive integer, e.g. "
     "core_num=8)"),
    ("y, t = pl.spmd_submit(self.kern, x, y, core_num=0)",
     "pl.spmd_submit(): core_num must be a positive integer, got 0"),
    ("y, t = pl.spmd_submit(self.kern, x, y, core_num=n)",
     "pl.spmd_submit(): core_num must be an integer expression, got 'n' (a fp32 scalar)"),
    ("y, t = pl.spmd_submit(self.kern, x, y, core_num=2, sync_start=1)",
     "pl.spmd_submit(): sync_start must be a boolean literal (True/False), got '1'"),
    ("y, t = pl.spmd_submit(self.kern, x, y, core_num=2, predicate=(x[0] > 0))",
     "pl.spmd_submit() got an unexpected keyword argument 'predicate'"),
    ("y, t = pl.spmd_submit(self.kern, x, y, core_num=2, deps=[x])",
     "pl.spmd_submit() deps= entries must be a TaskId variable, a TASK_ID array element (e.g. `arr[i]`), "
     "or None, got 'x' (a tensor)"),
    ("y, t = pl.spmd_submit(self.kern, x, y, core_num=2, dumps=[n])",
     "pl.spmd_submit() dumps= entry 'n' is not a tensor (got a fp32 scalar); only tensors can be dumped"),
    ("y, t = pl.spmd_submit(kern, x, y, core_num=2)",
     "pl.spmd_submit(...) first argument must be a `self.<kernel>` method reference, got 'kern'"),
    ("y, t = pl.spmd_submit(self.kern(x, y), core_num=2)",
     "pl.spmd_submit(...) first argument must be a `self.<kernel>` method reference, got "
     "'self.kern(x, y)' (pass the kernel itself, not a call: pl.spmd_submit(self.kernel, x, y))"),
    ("y, t = pl.spmd_submit(self.nothing, x, y, core_num=2)",
     "pl.spmd_submit(...): 'self.nothing' must name a @pl.jit.incore function of this module"),
    ("y, t = pl.spmd_submit(self.helper, x, y, core_num=2)",
     "pl.spmd_submit(...) launches an InCore kernel (@pl.jit.incore, or a @pl.function of type InCore / "
     "AIC / AIV / Spmd / Group); 'helper' is a @pl.jit.inline function"),
    ("y, t = pl.spmd_submit(self.fresh, x, core_num=2)",
     "pl.spmd_submit(...): a result of 'fresh' must be a tensor passed to it (a pl.Out / pl.InOut "
     "parameter it writes); a value it creates is each block's own and ends with the block"),
    ("(a, b), t = pl.spmd_submit(self.kern, x, y, core_num=2)",
     "pl.spmd_submit(...) unpacks 2 result value(s) but kernel 'kern' returns 1"),
    ("r = pl.spmd_submit(self.kern, x, y, core_num=2)",
     "pl.spmd_submit(...): bind the result and the task id as two names, not one tuple 'r'; use " + USAGE),
    ("y, t, u = pl.spmd_submit(self.kern, x, y, core_num=2)",
     "pl.spmd_submit(...) must be unpacked as exactly 2 targets (result, task_id), got 'y, t, u'; use "
     + USAGE),
    ("y, t[0] = pl.spmd_submit(self.kern, x, y, core_num=2)",
     "pl.spmd_submit(...) task_id target must be a plain variable name, got 't[0]'"),
    ("pl.spmd_submit(self.kern, x, y, core_num=2)",
     "pl.spmd_submit(...) must be unpacked as a 2-tuple: `out, tid = pl.spmd_submit(self.kernel, ..., "
     "core_num=N)`"),
    ("with pl.at(level=pl.Level.CORE_GROUP):\n        y, t = pl.spmd_submit(self.kern, x, y, core_num=2)",
     "pl.spmd_submit(...) submits a task from orchestration code; it cannot be inside an InCore region"),
]


@pytest.mark.parametrize("body,detail", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_bad_forms_are_located_errors(tmp_path, builds, body, detail):
    src = HEAD + "    " + body + "\n    return y\n"
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(8), 1.0)
    assert first_line(info.value) == "%s:%d: %s" % (path, line_of(src, body.split("\n")[-1].strip()), detail)
