"""The bundled PyPTO frontend: kernel AST -> sim_program IR, compiled_meta.json, JIT
specialisation and cache, RunConfig, and the errors a kernel author can cause.

Kernels are written to files under tmp_path and imported, so source files and line
numbers are real; builds go to tmp_path through PYPTO_PROG_BUILD_DIR."""

import importlib.util
import itertools
import json
import os
import re
import sys
import textwrap

import pytest
import torch

import pypto.language as pl
from pypto.compiler import build_dir
from pypto.jit import (CompiledProgram, JITFunction, KernelArgumentError,
                       KernelArgumentMismatchError, KernelCompileError)
from pypto.runtime import DistributedConfig, OptimizationStrategy, RunConfig

_module_ids = itertools.count()

HELLO = """\
import pypto.language as pl

ROWS = 1024
COLS = 512


@pl.jit
def hello_world(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    a: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for r in pl.parallel(0, ROWS, 128):
        for c in pl.range(0, COLS, 256):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_scalar"):
                tile = x[r:r + 128, c:c + 256]
                y[r:r + 128, c:c + 256] = pl.add(tile, a)
    return y
"""


def load(tmp_path, source, name="kernel"):
    """Write `source` to a file and import it; returns (module, absolute path)."""
    path = tmp_path / ("%s_%d.py" % (name, next(_module_ids)))
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module, os.path.abspath(str(path))


def line_of(source, text, nth=1):
    """1-based line of the nth line of `source` containing `text`."""
    hits = [i + 1 for i, line in enumerate(textwrap.dedent(source).splitlines()) if text in line]
    return hits[nth - 1]


def first_line(exc):
    """`<file>:<line>: <detail>` of a compile error: the line a source excerpt follows."""
    return str(exc).split("\n")[0]


def c(dtype, v):
    return {"e": "const", "dtype": dtype, "v": v}


def var(slot):
    return {"e": "var", "slot": slot}


def add(lhs, rhs):
    return {"e": "binop", "op": "add", "lhs": lhs, "rhs": rhs}


def hello_args():
    return torch.zeros(1024, 512), 1.5, torch.zeros(1024, 512)


def hello_body(scalar):
    """Expected body of HELLO with `scalar` as the value of `a`."""
    rows = [{"k": "slice", "lo": var(3), "hi": add(var(3), c("int64", 128))},
            {"k": "slice", "lo": var(4), "hi": add(var(4), c("int64", 256))}]
    at = {"s": "at", "line": 15, "name": "add_scalar", "body": [
        {"s": "assign", "line": 16, "slot": 5,
         "value": {"e": "subscript", "base": var(0), "index": rows,
                   "text": "x[r:r + 128, c:c + 256]"}},
        {"s": "write", "line": 17, "target": 2, "index": rows, "text": "y[r:r + 128, c:c + 256]",
         "value": {"e": "call", "op": "add", "args": [var(5), scalar], "kwargs": {}}},
    ]}
    inner = {"s": "for", "line": 14, "kind": "range", "var": 4, "start": c("int64", 0),
             "stop": c("int64", 512), "step": c("int64", 256), "body": [at]}
    outer = {"s": "for", "line": 13, "kind": "parallel", "var": 3, "start": c("int64", 0),
             "stop": c("int64", 1024), "step": c("int64", 128), "body": [inner]}
    return [outer, {"s": "return", "line": 18, "values": [var(2)]}]


def hello_params(runtime, value=2.0):
    return [
        {"name": "x", "kind": "tensor", "direction": "In", "shape": [1024, 512], "dtype": "fp32"},
        {"name": "a", "kind": "scalar", "direction": "In", "dtype": "fp32", "runtime": runtime,
         **({} if runtime else {"value": value})},  # a specialised scalar records its value (replays warn)
        {"name": "y", "kind": "tensor", "direction": "Out", "shape": [1024, 512], "dtype": "fp32"},
    ]


# ---------------------------------------------------------------- IR and build directory

def test_hello_world_ir_is_exact(tmp_path, builds):
    mod, path = load(tmp_path, HELLO)
    prog = mod.hello_world.compile(*hello_args())
    assert prog.program == {
        "format": "pypto-golden-sim", "version": 1, "source_file": path,
        "entry": "hello_world",
        "functions": [{"name": "hello_world", "line": 8, "params": hello_params(False, 1.5),
                       "slots": ["x", "a", "y", "r", "c", "tile"],
                       "body": hello_body(c("fp32", 1.5))}],
    }
    on_disk = json.loads((prog.output_dir / "sim_program.json").read_text())
    assert on_disk == prog.program


def test_compiled_meta_is_exact(tmp_path, builds):
    mod, _ = load(tmp_path, HELLO)
    prog = mod.hello_world.compile(*hello_args(), config=RunConfig(platform="a5sim"))
    meta = json.loads((prog.output_dir / "compiled_meta.json").read_text())
    assert meta == {
        "schema": 1,
        "params": [{"name": "x", "direction": "In", "shape": [1024, 512], "dtype": "fp32"},
                   {"name": "a", "direction": "In", "shape": None, "dtype": "fp32"},
                   {"name": "y", "direction": "Out", "shape": [1024, 512], "dtype": "fp32"}],
        "num_return_types": 1,
        "platform": "a5sim",
        "backend_type": "Ascend950",
    }
    # Atomic writes leave no temporaries behind; no passes_dump unless asked for.
    assert sorted(os.listdir(prog.output_dir)) == ["compiled_meta.json", "sim_program.json"]


def test_compiled_program_surface(tmp_path, builds):
    mod, _ = load(tmp_path, HELLO)
    prog = mod.hello_world.compile(*hello_args())
    assert isinstance(prog, CompiledProgram)
    assert prog.param_names == ["x", "a", "y"]
    assert prog.output_indices == [2]
    assert prog.has_return is True
    assert prog.output_dir.is_absolute()
    assert os.fspath(prog) == str(prog) == str(prog.output_dir)
    assert prog.output_dir.parent == builds


def test_jit_function_surface(tmp_path):
    mod, _ = load(tmp_path, HELLO)
    fn = mod.hello_world
    assert isinstance(fn, JITFunction)
    assert fn.__name__ == "hello_world"
    assert fn.param_names == ["x", "a", "y"]
    assert fn._param_names() == ["x", "a", "y"]  # PyPTO's name; corpus scripts call it
    assert repr(fn) == "JITFunction('hello_world', func_type='orchestration')"


def test_runtime_scalar_vs_specialised(tmp_path, builds):
    mod, _ = load(tmp_path, HELLO)
    rt = mod.hello_world.compile(a=pl.RUNTIME)
    fn = rt.program["functions"][0]
    assert fn["params"] == hello_params(True)
    assert fn["body"] == hello_body(var(1))
    spec = mod.hello_world.compile(a=2.0)  # signature mode, literal specialises
    assert spec.program["functions"][0]["params"] == hello_params(False)
    assert spec.program["functions"][0]["body"] == hello_body(c("fp32", 2.0))
    # Python int for an FP32 scalar is baked as a float.
    sample = mod.hello_world.compile(torch.zeros(1024, 512), 3, torch.zeros(1024, 512))
    assert sample.program["functions"][0]["body"] == hello_body(c("fp32", 3.0))


def test_cache_identity(tmp_path, builds):
    mod, _ = load(tmp_path, HELLO)
    fn = mod.hello_world
    first = fn.compile(*hello_args())
    assert fn.compile(*hello_args()) is first
    assert fn.compile(x=torch.ones(1024, 512), a=1.5, y=torch.ones(1024, 512)) is first
    other_value = fn.compile(torch.zeros(1024, 512), 2.5, torch.zeros(1024, 512))
    assert other_value is not first and other_value.output_dir != first.output_dir
    other_platform = fn.compile(*hello_args(), config=RunConfig(platform="a2a3"))
    assert other_platform is not first
    runtime = fn.compile(a=pl.RUNTIME)
    assert fn.compile(a=pl.RUNTIME) is runtime and runtime is not first
    assert len(os.listdir(builds)) == 3 + 1


def test_cache_distinguishes_scalar_types_and_shapes(tmp_path, builds):
    mod, _ = load(tmp_path, """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor, n, y: pl.Out[pl.Tensor]):
            y[0:n] = x[0:n]
            return y
        """)
    one_int = mod.k.compile(torch.zeros(8), 1, torch.zeros(8))
    one_float = mod.k.compile(torch.zeros(8), 1.0, torch.zeros(8))
    other_shape = mod.k.compile(torch.zeros(16), 1, torch.zeros(16))
    assert len({id(one_int), id(one_float), id(other_shape)}) == 3
    assert one_int.program["functions"][0]["params"][1] == {
        "name": "n", "kind": "scalar", "direction": "In", "dtype": "int64", "runtime": False, "value": 1}
    assert one_float.program["functions"][0]["params"][1]["dtype"] == "fp32"
    assert other_shape.program["functions"][0]["params"][0]["shape"] == [16]
    assert mod.k.compile(torch.zeros(8), 1, torch.zeros(8)) is one_int


def test_build_dir_naming(tmp_path, builds, monkeypatch):
    mod, _ = load(tmp_path, HELLO)
    monkeypatch.setattr(build_dir, "_timestamp", lambda: "20260102_030405")
    names = [mod.hello_world.compile(torch.zeros(1024, 512), float(v),
                                     torch.zeros(1024, 512)).output_dir.name for v in range(3)]
    assert names == ["hello_world_20260102_030405", "hello_world_20260102_030405_1",
                     "hello_world_20260102_030405_2"]


def test_build_dir_defaults_to_cwd_build_output(tmp_path, monkeypatch):
    monkeypatch.delenv("PYPTO_PROG_BUILD_DIR", raising=False)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    mod, _ = load(tmp_path, HELLO)
    out = mod.hello_world.compile(*hello_args()).output_dir
    assert out.parent == work / "build_output"
    assert re.fullmatch(r"hello_world_\d{8}_\d{6}", out.name)


def test_save_kernels_dir_is_the_output_dir(tmp_path, builds):
    mod, _ = load(tmp_path, HELLO)
    target = tmp_path / "exact"
    prog = mod.hello_world.compile(*hello_args(), config=RunConfig(save_kernels_dir=str(target)))
    assert prog.output_dir == target
    assert (target / "compiled_meta.json").is_file()


def test_passes_dump(tmp_path, builds):
    mod, path = load(tmp_path, HELLO)
    prog = mod.hello_world.compile(*hello_args(), config=RunConfig(dump_passes=True))
    assert os.listdir(prog.output_dir / "passes_dump") == ["sim_program.txt"]
    assert (prog.output_dir / "passes_dump" / "sim_program.txt").read_text() == (
        "# hello_world (%s), sim_program version 1\n"
        "    8 | def hello_world:\n"
        "      |   # param 0 x: tensor In [1024, 512] fp32\n"
        "      |   # param 1 a: scalar fp32 (specialised)\n"
        "      |   # param 2 y: tensor Out [1024, 512] fp32\n"
        "   13 |   for r in parallel(0, 1024, 128):\n"
        "   14 |     for c in range(0, 512, 256):\n"
        "   15 |       at 'add_scalar':\n"
        "   16 |         tile = x[r:r + 128, c:c + 256]\n"
        "   17 |         y[r:r + 128, c:c + 256] = add(tile, 1.5)\n"
        "   18 |   return y\n" % path)


def test_kernel_error_leaves_no_build_dir(tmp_path, builds):
    mod, _ = load(tmp_path, """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor[[8], pl.FP32]):
            while True:
                pass
        """)
    with pytest.raises(KernelCompileError):
        mod.k.compile(torch.zeros(8))
    assert not builds.exists() or os.listdir(builds) == []


# ---------------------------------------------------------------- folding and constructs

def test_module_constants_shape_and_dtype_fold(tmp_path, builds):
    src = """\
        import pypto.language as pl

        TILE = 64
        SCALE = 0.5
        FLAG = True
        NAME = "blk"
        DT = pl.BF16

        @pl.jit
        def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):
            m, n = x.shape
            last = x.shape[-1]
            t = x.dtype
            for i in pl.range(x.shape[0] // TILE):
                with pl.at(name_hint=NAME):
                    y[i * TILE:i * TILE + TILE, :] = x[i * TILE:i * TILE + TILE, :] * SCALE
            f = FLAG
            d = DT
            return y
        """
    mod, _ = load(tmp_path, src)
    prog = mod.k.compile(torch.zeros(128, 32, dtype=torch.bfloat16),
                         torch.zeros(128, 32, dtype=torch.bfloat16))
    fn = prog.program["functions"][0]
    assert fn["slots"] == ["x", "y", "m", "n", "last", "t", "i", "f", "d"]
    L = lambda text: line_of(src, text)  # noqa: E731
    lo = {"e": "binop", "op": "mul", "lhs": var(6), "rhs": c("int64", 64)}
    window = [{"k": "slice", "lo": lo, "hi": add(lo, c("int64", 64))},
              {"k": "slice", "lo": None, "hi": None}]
    assert fn["body"] == [
        {"s": "unpack", "line": L("m, n ="), "slots": [2, 3],
         "value": {"e": "list", "items": [c("int64", 128), c("int64", 32)]}},
        {"s": "assign", "line": L("last ="), "slot": 4, "value": c("int64", 32)},
        {"s": "assign", "line": L("t = x.dtype"), "slot": 5, "value": c("dtype", "bfloat16")},
        {"s": "for", "line": L("for i"), "kind": "range", "var": 6, "start": c("int64", 0),
         "stop": c("int64", 2),  # x.shape[0] // TILE folds
         "step": c("int64", 1), "body": [
             {"s": "at", "line": L("with pl.at"), "name": "blk", "body": [
                 {"s": "write", "line": L("y[i"), "target": 1, "index": window,
                  "text": "y[i * TILE:i * TILE + TILE, :]",
                  "value": {"e": "binop", "op": "mul",
                            "lhs": {"e": "subscript", "base": var(0), "index": window,
                                    "text": "x[i * TILE:i * TILE + TILE, :]"},
                            "rhs": c("fp32", 0.5)}}]}]},
        {"s": "assign", "line": L("f ="), "slot": 7, "value": c("bool", True)},
        {"s": "assign", "line": L("d ="), "slot": 8, "value": c("dtype", "bfloat16")},
        {"s": "return", "line": L("return"), "values": [var(1)]},
    ]
    # Module constants are frozen at first compile: the cached artifact keeps them.
    mod.TILE = 32
    assert mod.k.compile(torch.zeros(128, 32, dtype=torch.bfloat16),
                         torch.zeros(128, 32, dtype=torch.bfloat16)) is prog


def test_string_annotations_and_closure(tmp_path, builds):
    src = """\
        from __future__ import annotations
        import pypto.language as pl

        def make(n):
            @pl.jit
            def k(x: pl.Tensor[[n], pl.INT32], s: pl.Scalar[pl.INT32],
                  y: pl.InOut[pl.Tensor[[n], pl.INT32]]):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y[0:n] = pl.add(x[0:n], s)
            return k

        k = make(16)
        """
    mod, path = load(tmp_path, src)
    prog = mod.k.compile(s=pl.RUNTIME)
    fn = prog.program["functions"][0]
    assert fn["line"] == line_of(src, "def k")
    assert fn["params"] == [
        {"name": "x", "kind": "tensor", "direction": "In", "shape": [16], "dtype": "int32"},
        {"name": "s", "kind": "scalar", "direction": "In", "dtype": "int32", "runtime": True},
        {"name": "y", "kind": "tensor", "direction": "InOut", "shape": [16], "dtype": "int32"},
    ]
    window = [{"k": "slice", "lo": c("int64", 0), "hi": c("int64", 16)}]
    assert fn["body"] == [{"s": "at", "line": line_of(src, "with pl.at"), "name": None, "body": [
        {"s": "write", "line": line_of(src, "y[0:n]"), "target": 2, "index": window,
         "text": "y[0:n]",
         "value": {"e": "call", "op": "add", "kwargs": {}, "args": [
             {"e": "subscript", "base": var(0), "index": window, "text": "x[0:n]"},
             var(1)]}}]}]
    meta = json.loads((prog.output_dir / "compiled_meta.json").read_text())
    assert meta["num_return_types"] == 0
    specialised = mod.k.compile(s=7)
    assert specialised.program["functions"][0]["body"][0]["body"][0]["value"]["args"][1] == \
        c("int32", 7)


def test_runtime_loop_bounds_if_augassign_and_tuple_return(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX],
              y: pl.Out[pl.Tensor[[64], pl.FP32]], z: pl.Out[pl.Tensor[[64], pl.FP32]]):
            acc = 0
            for i in pl.range(n):
                acc += i % 2
                if acc >= 3 and not i == 0:
                    z[i] = x[-1]
                else:
                    pass
            return y, z
        """
    mod, _ = load(tmp_path, src)
    fn = mod.k.compile(n=pl.RUNTIME).program["functions"][0]
    L = lambda text: line_of(src, text)  # noqa: E731
    cond = {"e": "binop", "op": "and",
            "lhs": {"e": "binop", "op": "ge", "lhs": var(4), "rhs": c("int64", 3)},
            "rhs": {"e": "unary", "op": "not",
                    "operand": {"e": "binop", "op": "eq", "lhs": var(5), "rhs": c("int64", 0)}}}
    assert fn["slots"] == ["x", "n", "y", "z", "acc", "i"]
    assert fn["body"] == [
        {"s": "assign", "line": L("acc = 0"), "slot": 4, "value": c("int64", 0)},
        {"s": "for", "line": L("for i"), "kind": "range", "var": 5, "start": c("int64", 0),
         "stop": var(1), "step": c("int64", 1), "body": [
             {"s": "assign", "line": L("acc +="), "slot": 4,
              "value": add(var(4), {"e": "binop", "op": "mod", "lhs": var(5),
                                    "rhs": c("int64", 2)})},
             {"s": "if", "line": L("if acc"), "cond": cond,
              "then": [{"s": "write", "line": L("z[i]"), "target": 3, "text": "z[i]",
                        "index": [{"k": "index", "v": var(5)}],
                        "value": {"e": "subscript", "base": var(0),
                                  "index": [{"k": "index", "v": c("int64", -1)}],
                                  "text": "x[-1]"}}],
              "else": []}]},
        {"s": "return", "line": L("return"), "values": [var(2), var(3)]},
    ]


def test_rebound_specialised_scalar_is_seeded_in_a_prologue(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor[[8], pl.FP32], s: pl.Scalar[pl.INT32]):
            s = s * 2
        """
    mod, _ = load(tmp_path, src)
    fn = mod.k.compile(torch.zeros(8), 5).program["functions"][0]
    assert fn["body"] == [
        {"s": "assign", "line": 4, "slot": 1, "value": c("int32", 5)},
        {"s": "assign", "line": 5, "slot": 1, "value": c("int64", 10)},  # 5 * 2 folds
    ]


# ---------------------------------------------------------------- compile errors

LOOPS = "pl.range(...), pl.parallel(...), pl.unroll(...), pl.pipeline(...), pl.spmd(...) or pl.split_aiv(...)"

ERROR_CASES = [
    ("unknown_op", "y[0:8] = pl.frobnicate(x, x)", "y[0:8] =", "unknown op 'pl.frobnicate'"),
    ("unknown_op_hint", "y[0:8] = pl.ad(x, x)", "y[0:8] =",
     "unknown op 'pl.ad' (did you mean pl.add?)"),
    ("arity_few", "y[0:8] = pl.add(x)", "y[0:8] =",
     "pl.add() takes 2 arguments (lhs, rhs), got 1"),
    ("arity_many", "y[0:8] = pl.add(x, x, x)", "y[0:8] =",
     "pl.add() takes 2 arguments (lhs, rhs), got 3"),
    ("op_keyword", "y[0:8] = pl.add(x, x, mode=1)", "y[0:8] =",
     "pl.add() got an unexpected keyword argument 'mode'"),
    ("plain_range", "for i in range(4):\n        pass", "for i",
     "plain Python 'range' is not allowed as a kernel loop; use %s" % LOOPS),
    ("other_iterator", "for i in [1, 2]:\n        pass", "for i",
     "a kernel for-loop must iterate over %s, got '[1, 2]'" % LOOPS),
    ("loop_arity", "for i in pl.parallel(0, 8, 1, 2):\n        pass", "for i",
     "pl.parallel() takes 1 to 3 arguments (start, stop, step), got 4"),
    ("loop_keyword", "for i in pl.parallel(8, init_values=(x,)):\n        pass", "for i",
     "pl.parallel() got an unexpected keyword argument 'init_values'"),
    ("loop_init_target", "for i in pl.range(8, init_values=(x,)):\n        pass", "for i",
     "pl.range() with init_values=: the loop target must be 'i, (a, b, ...)', got 'i'"),
    ("loop_init_count", "for i, (a, b) in pl.range(8, init_values=(x,)):\n        pass",
     "for i", "pl.range(): 1 init_values for 2 carried names"),
    ("spmd_arity", "for i in pl.spmd(0, 4):\n        pass", "for i",
     "pl.spmd() takes 1 positional argument (core_num), got 2"),
    ("pipeline_stage", "for i in pl.pipeline(8, stage=x):\n        pass", "for i",
     "pl.pipeline(): stage must be a positive compile-time int, got 'x'"),
    ("while", "while True:\n        pass", "while",
     "unsupported syntax in a kernel: 'while' loop"),
    ("lambda", "f = lambda v: v", "f =", "unsupported syntax in a kernel: lambda"),
    ("power", "t = x ** 2", "t =", "operator '**' is not supported in a kernel"),
    ("chained_compare", "t = 0 < 1 < 2", "t =",
     "chained comparison '0 < 1 < 2' is not supported; combine single comparisons with 'and'"),
    ("write_target", "y[0:8][0:4] = x[0:4]", "y[0:8][0:4]",
     "the target of a subscript assignment must be a plain tensor name, got 'y[0:8]'"),
    ("undefined", "t = missing_name + 1", "t =", "name 'missing_name' is not defined"),
    ("python_call", "print(x)", "print", "call to 'print' is not supported in a kernel: "
     "only pl.<op>(...) calls and calls of @pl.jit.inline / @pl.jit.incore functions are "
     "allowed"),
    ("loop_as_value", "t = pl.range(4)", "t =",
     "pl.range(...) can only be used as a for-loop iterator"),
    ("with_other", "with open('f'):\n        pass", "with",
     "a kernel 'with' statement must be 'with pl.at(...)', 'with pl.spmd(...)', "
     "'with pl.scope()' or 'with pl.manual_scope()'"),
    ("at_keyword", "with pl.at(deps=[], bogus=1):\n        pass", "with",
     "pl.at() got an unexpected keyword argument 'bogus'"),
    ("at_as_target", "with pl.at() as (a, b):\n        pass", "with",
     "pl.at(): the 'as' target must be a plain name, got '(a, b)'"),
    ("slice_step", "t = x[0:8:2]", "t =",
     "slice steps are not supported in kernel subscripts ('x[0:8:2]')"),
    ("module_value", "t = pl", "t =",
     "'pl' is a module and cannot be used as a value in a kernel (only int, float, bool, "
     "str, pl dtype and enum values and lists of them are folded)"),
    ("namespaced_op", "y[0:8] = pl.tensor.frobnicate(x, x)", "y[0:8] =",
     "unknown op 'pl.tensor.frobnicate'"),
    ("method_call", "t = x.view(8)", "t =",
     "call to 'x.view' is not supported in a kernel: only pl.<op>(...) calls and calls of "
     "@pl.jit.inline / @pl.jit.incore functions are allowed"),
    ("undefined_attribute", "t = pl.FP33", "t =", "'pl.FP33' is not defined"),
    ("attribute_of_view", "t = x[0:4].shape", "t =",
     "attribute 'x[0:4].shape' is not supported in a kernel"),
    ("dtype_of_carried", "for i in pl.range(2):\n        t = x.dtype\n        x = x[0:4]",
     "t =", "'x.dtype': the dtype of 'x' is not known at compile time"),
    ("shape_of_scalar", "n = 3\n    t = n.shape", "t =", "'n.shape': 'n' is a scalar"),
    ("shape_index", "t = x.shape[5]", "t =", "'x.shape[5]': index 5 out of range for a 1-d tensor"),
    ("op_outside_incore", "y[0:8] = pl.add(x, x)", "y[0:8] =",
     "pl.add() is a tensor op and must be inside an InCore region ('with pl.at(...)', a pl.spmd "
     "body or a @pl.jit.incore function); outside one only pl.create_tensor, pl.read, "
     "pl.write, pl.slice, pl.reshape, pl.transpose, pl.assemble, pl.tensor.dim and "
     "subscripts are allowed"),
    ("namespaced_op_outside_incore", "y[0:8] = pl.tile.add(x, 1.0)", "y[0:8] =",
     "pl.tile.add() is a tensor op and must be inside an InCore region ('with pl.at(...)', a "
     "pl.spmd body or a @pl.jit.incore function); outside one only pl.create_tensor, "
     "pl.read, pl.write, pl.slice, pl.reshape, pl.transpose, pl.assemble, pl.tensor.dim and "
     "subscripts are allowed"),
    ("arithmetic_outside_incore", "t = x * 2.0", "t =",
     "tensor arithmetic 'x * 2.0' must be inside an InCore region ('with pl.at(...)', a "
     "pl.spmd body or a @pl.jit.incore function)"),
    ("tensor_floordiv", "with pl.at():\n        t = x // 2", "t =",
     "operator '//' is not supported on tensors ('x // 2')"),
    ("yield_outside", "t = pl.yield_(x)", "t =",
     "pl.yield_() must be inside a pl.range(..., init_values=...) loop or an if/else branch"),
    ("yield_in_expression", "t = pl.add(pl.yield_(x), x)", "t =",
     "pl.yield_(...) must be a statement of its own or the whole right-hand side of an "
     "assignment"),
    ("yield_count", "for i, (a,) in pl.range(8, init_values=(x,)):\n        a = pl.yield_(a, a)",
     "a = pl.yield_", "pl.yield_() gives 2 value(s) but the loop carries 1"),
    ("yield_if_unassigned", "if x[0] > 0:\n        pl.yield_(x)", "pl.yield_",
     "pl.yield_() in an if/else branch must assign its values ('x = pl.yield_(...)')"),
    ("block_idx_args", "t = pl.get_block_idx(1)", "t =", "pl.get_block_idx() takes no arguments"),
    ("static_assert", "pl.static_assert(x.shape[0] == 9, 'need 9 rows')", "static_assert",
     "static assertion failed: need 9 rows"),
    ("static_assert_runtime", "pl.static_assert(x[0] > 0)", "static_assert",
     "pl.static_assert(): 'x[0] > 0' is not known at compile time"),
    ("is_runtime", "t = x is None", "t =",
     "'x is None': 'is' / 'is not' only compare compile-time values"),
    ("write_scalar", "n = 3\n    n[0] = 1", "n[0]", "'n' is a scalar and cannot be subscripted"),
    ("dim_axis", "t = pl.tensor.dim(x, 2)", "t =",
     "'pl.tensor.dim(x, 2)': axis 2 out of range for a 1-d tensor"),
    ("scope_args", "with pl.scope(1):\n        pass", "with",
     "pl.scope() takes no positional arguments"),
    ("return_count", "if 1:\n        return x\n    return x, y", "return x, y",
     "this return gives 2 value(s) but an earlier one gives 1"),
]


@pytest.mark.parametrize("body,marker,detail", [case[1:] for case in ERROR_CASES],
                         ids=[case[0] for case in ERROR_CASES])
def test_compile_errors(tmp_path, builds, body, marker, detail):
    src = ("import pypto.language as pl\n\n@pl.jit\n"
           "def k(x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]]):\n"
           "    " + body + "\n")
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(8))
    line = line_of(src, marker)
    assert first_line(info.value) == "%s:%d: %s" % (path, line, detail)
    assert (info.value.source_file, info.value.line, info.value.detail) == (path, line, detail)
    assert not isinstance(info.value, (TypeError, ValueError))
    # Then the source line, as a traceback shows it, and carets under the construct.
    text = src.splitlines()[line - 1]
    indent = len(text) - len(text.lstrip())
    source, caret = str(info.value).split("\n")[1:]
    assert source == "    " + text.strip()
    assert re.fullmatch(r" {%d}\^+" % (4 + info.value.column - indent), caret)


def test_eager_call_of_a_placeholder_is_a_runtime_error():
    for fn in (pl.add, pl.parallel, pl.range, pl.at):
        with pytest.raises(RuntimeError, match=r"only meaningful inside a @pl.jit kernel"):
            fn(1, 2)


# ---------------------------------------------------------------- argument errors

def test_argument_errors(tmp_path, builds):
    mod, path = load(tmp_path, HELLO)
    fn = mod.hello_world
    x, y = torch.zeros(1024, 512), torch.zeros(1024, 512)
    cases = [
        (lambda: fn.compile(x, 1.0, y, y), KernelArgumentError, 8,
         "hello_world() takes 3 arguments (x, a, y) but 4 were given"),
        (lambda: fn.compile(x, 1.0, y, z=1), KernelArgumentError, 8,
         "hello_world() got an unexpected keyword argument 'z'"),
        (lambda: fn.compile(x, 1.0, y, x=x), KernelArgumentError, 8,
         "hello_world() got multiple values for argument 'x'"),
        (lambda: fn.compile(x, 1.0), KernelArgumentError, 8,
         "hello_world() missing 1 required argument: 'y'"),
        (lambda: fn.compile(x, x, y), KernelArgumentError, 10,
         "parameter 'a' is a scalar but a torch.Tensor was passed"),
        (lambda: fn.compile(1.0, 1.0, y), KernelArgumentError, 9,
         "parameter 'x' is a tensor but a float was passed"),
        (lambda: fn.compile(x, "1", y), KernelArgumentError, 10,
         "scalar parameter 'a' must be an int, float, bool or pl.RUNTIME, got str"),
        (lambda: fn.compile(torch.zeros(1024), 1.0, y), KernelArgumentMismatchError, 9,
         "parameter 'x': annotated shape [1024, 512] but the tensor passed has shape [1024]"),
        (lambda: fn.compile(x, 1.0, torch.zeros(1024, 512, dtype=torch.float16)),
         KernelArgumentMismatchError, 11,
         "parameter 'y': annotated dtype fp32 but the tensor passed has dtype fp16"),
        (lambda: fn.compile(x, pl.RUNTIME, y), KernelArgumentError, 10,
         "parameter 'a': pl.RUNTIME is a compile-time marker, accepted only by compile() in "
         "signature mode (no tensor arguments)"),
        (lambda: fn(x, pl.RUNTIME, y), KernelArgumentError, 10,
         "parameter 'a': pl.RUNTIME is a compile-time marker, accepted only by compile() in "
         "signature mode (no tensor arguments)"),
        (lambda: fn.compile(), KernelArgumentError, 10,
         "scalar parameter 'a' has no value. Pass 'a=<value>' to specialise it or "
         "'a=pl.RUNTIME' to keep it a runtime parameter"),
        (lambda: fn.compile(a=1.0, x=pl.RUNTIME), KernelArgumentError, 9,
         "parameter 'x' is a tensor: pl.RUNTIME only applies to scalar parameters"),
    ]
    for call, cls, line, detail in cases:
        with pytest.raises(cls) as info:
            call()
        assert first_line(info.value) == "%s:%d: %s" % (path, line, detail)
    # pypto-compatible exception types
    assert issubclass(KernelArgumentError, TypeError)
    assert issubclass(KernelArgumentMismatchError, ValueError)
    assert issubclass(KernelArgumentError, KernelCompileError)


def test_a_tensor_of_other_extents_than_its_annotation_wins_with_a_warning(tmp_path, builds):
    # As PyPTO's JIT specialises on the sample tensor: the program is compiled for its
    # extents, and the annotation that says otherwise is named.
    mod, path = load(tmp_path, HELLO)
    with pytest.warns(UserWarning) as caught:
        prog = mod.hello_world.compile(torch.zeros(1024, 256), 1.0, torch.zeros(1024, 512))
    assert [(str(w.message), w.filename, w.lineno) for w in caught] == [(
        "parameter 'x': annotated shape [1024, 512] but the tensor passed has shape [1024, 256]; "
        "compiled for the tensor's shape, as PyPTO's JIT does", str(path), 9)]
    assert prog.program["functions"][0]["params"][0]["shape"] == [1024, 256]
    # Another rank stays an error (above), as does a @pl.program's (test_frontend_constructs).


def test_bare_tensor_in_signature_mode(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor, n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[4], pl.FP32]]):
            return y
        """
    mod, path = load(tmp_path, src)
    with pytest.raises(TypeError) as info:
        mod.k.compile(n=pl.RUNTIME)
    assert str(info.value) == (
        "%s:4: parameter 'x' has a bare 'pl.Tensor' annotation: signature-mode compile() needs "
        "pl.Tensor[[dims], dtype] (or pass sample tensors)" % path)
    # The same kernel compiles in sample mode; the sample gives the shape.
    prog = mod.k.compile(torch.zeros(2, 3, dtype=torch.int8), 4, torch.zeros(4))
    assert prog.program["functions"][0]["params"][0] == {
        "name": "x", "kind": "tensor", "direction": "In", "shape": [2, 3], "dtype": "int8"}


def test_runtime_default_in_signature(tmp_path, builds):
    src = """\
        import pypto.language as pl

        @pl.jit
        def k(x: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INT32] = pl.RUNTIME):
            return x
        """
    mod, path = load(tmp_path, src)
    assert mod.k.compile().program["functions"][0]["params"][1]["runtime"] is True
    assert mod.k.compile(torch.zeros(4)).program["functions"][0]["params"][1]["runtime"] is True
    with pytest.raises(KernelArgumentError) as info:
        mod.k(torch.zeros(4))
    assert first_line(info.value) == "%s:4: k() missing 1 required argument: 'n'" % path


# ---------------------------------------------------------------- dispatch

def test_dispatch_runs_the_native_simulate_and_names_a_wrong_argument(tmp_path, builds):
    mod, path = load(tmp_path, HELLO)
    x, y = torch.randn(1024, 512), torch.zeros(1024, 512)
    assert mod.hello_world(x, 1.5, y) is None
    assert torch.equal(y, x + 1.5)
    rt = mod.hello_world.compile(a=pl.RUNTIME)
    assert rt(x, 3, y, config=RunConfig(platform="a5sim")) is None  # an int for the FP32 scalar
    assert torch.equal(y, x + 3.0)
    assert rt(x, True, y) is None
    assert torch.equal(y, x + 1.0)
    # The native side refuses an argument of the wrong kind before it dispatches anything;
    # the message names the parameter.
    y.zero_()
    for args, detail in [((x, y), "the compiled program takes 3 arguments (x, a, y), got 2"),
                         ((x, pl.RUNTIME, y), "parameter 'a' is a scalar and needs a number at dispatch, "
                                              "got pl.RUNTIME"),
                         ((x, "3", y), "parameter 'a' is a scalar and needs a number at dispatch, got '3'"),
                         ((x, 3.0, [y]), "parameter 'y' is a tensor but a list was passed"),
                         ((3.0, 3.0, y), "parameter 'x' is a tensor but a float was passed")]:
        with pytest.raises(KernelArgumentError) as info:
            rt(*args)
        assert str(info.value) == "%s:8: hello_world: %s" % (path, detail)
    assert not y.any()


# ---------------------------------------------------------------- language surface

def test_dtypes():
    names = {"FP32": "fp32", "FP16": "fp16", "BF16": "bfloat16", "INT8": "int8",
             "INT16": "int16", "INT32": "int32", "INT64": "int64", "UINT8": "uint8",
             "UINT16": "uint16", "UINT32": "uint32", "UINT64": "uint64", "BOOL": "bool",
             "INDEX": "index"}
    assert {k: str(getattr(pl, k)) for k in names} == names
    assert pl.FP32.to_torch() is torch.float32
    assert pl.BF16.to_torch() is torch.bfloat16
    assert pl.BOOL.to_torch() is torch.bool
    assert pl.INDEX.to_torch() is None
    assert repr(pl.BF16) == "pl.BF16"


def test_annotations_and_markers():
    t = pl.Tensor[[4, 8], pl.FP16]
    assert (t.shape, t.dtype) == ((4, 8), pl.FP16)
    out = pl.Out[t]
    assert (out.direction, out.inner) == ("Out", t)
    assert pl.InOut[pl.Tensor].inner is pl.Tensor
    assert pl.Scalar[pl.INT32].dtype is pl.INT32
    m = pl.dynamic("M")
    assert pl.Tensor[[m, 8], pl.FP32].shape == (m, 8)
    assert repr(pl.RUNTIME) == "pl.RUNTIME"
    assert pl.Level.CORE_GROUP.name == "CORE_GROUP"
    with pytest.raises(TypeError, match=r"pl.Tensor\[...\]: the dtype must be a pl dtype"):
        pl.Tensor[[4], "fp32"]


def test_jit_decorator_forms():
    def k(x):
        return x
    assert isinstance(pl.jit(k), JITFunction)
    assert isinstance(pl.jit(auto_scope=False)(k), JITFunction)
    with pytest.raises(TypeError, match=r"pl.jit\(\) got an unexpected keyword argument 'nope'"):
        pl.jit(nope=1)
    assert repr(pl.jit.inline(k)) == "JITFunction('k', func_type='inline')"
    assert repr(pl.jit.incore(k)) == "JITFunction('k', func_type='incore')"
    assert pl.jit.incore(level=pl.Level.AIC)(k)._level is pl.Level.AIC
    with pytest.raises(TypeError, match=r"pl.jit.incore\(\) got an unexpected keyword argument "
                                        r"'auto_scope'"):
        pl.jit.incore(auto_scope=True)
    with pytest.raises(TypeError, match=r"'k' is a @pl.jit.inline function: it is spliced into "
                                        r"the kernels that call it and cannot be compiled"):
        pl.jit.inline(k).compile()
    assert repr(pl.jit.host(k)) == "JITFunction('k', func_type='host')"
    with pytest.raises(TypeError, match=r"pl.jit.host\(\) got an unexpected keyword argument 'level'"):
        pl.jit.host(level=pl.Level.AIC)
    made = pl.jit.opaque(k)  # defining one works (scripts define them at import)
    assert repr(made) == "<pl.jit.opaque k>"
    with pytest.raises(NotImplementedError) as info:
        made()
    assert str(info.value) == ("'k' is a @pl.jit.opaque function, which the bundled pypto-golden frontend does "
                               "not run yet")


def test_an_extern_kernel_is_defined_but_never_runs():
    # Defining one (as scripts do at import) works; using it is one error naming it.
    def attn(q: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor: ...

    ext = pl.jit.extern(core_type="mixed", aic_source="attn.cce", aiv_source="attn.cce")(attn)
    assert repr(ext) == "<pl.jit.extern attn>"
    message = ("'attn' is a @pl.jit.extern kernel: hand-written device C++ (attn.cce), which the simulator "
               "cannot execute; it runs only on an Ascend NPU")
    for use in (lambda: ext(torch.zeros(2), torch.zeros(2)), lambda: ext.compile()):
        with pytest.raises(NotImplementedError) as info:
            use()
        assert str(info.value) == message
    assert pl.jit.extern(attn).unsupported_message() == (
        "'attn' is a @pl.jit.extern kernel: hand-written device C++, which the simulator cannot execute; it runs "
        "only on an Ascend NPU")

    @pl.jit
    def caller(q: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        out = ext(q, out)
        return out

    with pytest.raises(KernelCompileError) as info:
        caller.compile(torch.zeros(8, 8), torch.zeros(8, 8))
    line = line_of(open(__file__).read(), "out = ext(q, out)")
    assert first_line(info.value) == "%s:%d: %s" % (__file__, line, message)


# ---------------------------------------------------------------- RunConfig

def test_run_config_defaults_and_platforms():
    cfg = RunConfig()
    assert (cfg.platform, cfg.backend_type, cfg.device_id) == ("a2a3sim", "Ascend910B", 0)
    assert (cfg.rtol, cfg.atol, cfg.strategy) == (1e-5, 1e-5, OptimizationStrategy.Default)
    assert RunConfig(platform="a5").backend_type == "Ascend950"
    assert RunConfig(platform="a5sim", backend_type="Ascend910B").backend_type == "Ascend950"
    assert RunConfig(platform="a2a3").backend_type == "Ascend910B"
    with pytest.raises(ValueError) as info:
        RunConfig(platform="x")
    assert str(info.value) == "Invalid platform 'x'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."
    with pytest.raises(TypeError) as info:
        RunConfig(bogus=1)
    assert str(info.value) == "RunConfig.__init__() got an unexpected keyword argument 'bogus'"


def test_run_config_swimlane_levels():
    assert RunConfig(enable_chip_swimlane=True).enable_chip_swimlane == 4
    assert RunConfig(enable_chip_swimlane=False).enable_chip_swimlane == 0
    with pytest.raises(ValueError) as info:
        RunConfig(enable_chip_swimlane=5)
    assert str(info.value) == ("enable_chip_swimlane must be a collection level in [0, 4] (0=off, 1=AICore timing, "
                               "2=+dispatch/finish, 3=+sched phases, 4=+orch phases), got 5")
    with pytest.raises(TypeError) as info:
        RunConfig(enable_chip_swimlane="on")
    assert str(info.value) == "enable_chip_swimlane must be an int collection level (0-4) or a bool, got str"


def test_run_config_deprecated_l2_swimlane_alias_warns_and_maps():
    with pytest.warns(DeprecationWarning, match=r"^RunConfig\.enable_l2_swimlane is deprecated; use "
                                                r"enable_chip_swimlane instead\."):
        cfg = RunConfig(enable_l2_swimlane=2)
    assert cfg.enable_chip_swimlane == 2 and cfg.enable_l2_swimlane == 2
    assert "l2" not in repr(cfg)  # not a field: replace() and repr stay clean
    with pytest.warns(DeprecationWarning):
        cfg.enable_l2_swimlane = True
    assert cfg.enable_chip_swimlane == 4
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError) as info:
        RunConfig(enable_l2_swimlane=1, enable_chip_swimlane=1)
    assert str(info.value) == ("RunConfig received both enable_chip_swimlane and the deprecated "
                               "enable_l2_swimlane; pass only enable_chip_swimlane.")
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError) as info:
        RunConfig(enable_l2_swimlane=7)
    assert str(info.value).startswith("enable_chip_swimlane must be a collection level in [0, 4]")  # as in PyPTO


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(ring_task_window=3), ValueError, "ring_task_window must be a power of 2 >= 4, got 3"),
    (dict(ring_task_window=True), ValueError, "ring_task_window must be a power of 2 >= 4, got True"),
    (dict(ring_heap=100), ValueError, "ring_heap must be a power of 2 >= 1024 (bytes per ring), got 100"),
    (dict(ring_dep_pool=2), ValueError, "ring_dep_pool must be in [4, INT32_MAX], got 2"),
    (dict(ring_dep_pool=[4, 8]), ValueError,
     "ring_dep_pool must have exactly 4 entries (one per scope-depth ring), got 2"),
    (dict(ring_heap=(1024, 0, 1000, 0)), ValueError,
     "ring_heap entries must be a power of 2 >= 1024 (bytes per ring) (or 0 to keep default), got 1000"),
    (dict(ring_task_window=[4, False, 0, 0]), ValueError,
     "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep default), got False"),
    (dict(enable_pmu="x"), TypeError, "enable_pmu must be an int (or a bool), got str"),
    (dict(enable_dump_args=1.5), TypeError, "enable_dump_args must be an int (or a bool), got float"),
    (dict(device_id=-1), ValueError, "device_id must be a non-negative int, got -1"),
    (dict(aicpu_thread_num=1), ValueError,
     "aicpu_thread_num must be None, 0 (auto) or in range [2, 4] on a2a3sim, got 1"),
    (dict(aicpu_thread_num=6, platform="a5sim"), ValueError,
     "aicpu_thread_num must be None, 0 (auto) or in range [2, 5] on a5sim, got 6"),
])
def test_run_config_refuses_what_the_runtime_refuses(kwargs, error, message):
    with pytest.raises(error) as info:
        RunConfig(**kwargs)
    assert str(info.value) == message


def test_run_config_accepts_what_the_runtime_accepts():
    cfg = RunConfig(ring_task_window=(8, 0, 16, 0), ring_heap=1 << 20, ring_dep_pool=2**31 - 1,
                    aicpu_thread_num=0, enable_dump_args=9, enable_pmu=True)
    assert cfg.ring_task_window == [8, 0, 16, 0]  # a tuple becomes a list, as in PyPTO
    assert cfg.enable_dump_args == 3  # PyPTO's runtime clamps the level to 0..3
    assert RunConfig(aicpu_thread_num=5, platform="a5").aicpu_thread_num == 5
    assert RunConfig(enable_dump_args=True).enable_dump_args == 1


def test_run_config_partitions():
    dist = DistributedConfig(device_ids=[0, 1])
    cfg = RunConfig(platform="a5sim", device_id=3, dump_passes=True, compile_profiling=True,
                    save_kernels_dir="/tmp/k", distributed_config=dist, enable_pmu=2,
                    ring_heap=4096, aicpu_thread_num=4)
    assert cfg.compile_kwargs() == {
        "strategy": OptimizationStrategy.Default, "dump_passes": True,
        "dump_ptoas_passes": False, "profiling": True, "diagnostic_phase": None,
        "disabled_diagnostics": None, "analyze_auto_scopes_for_deps": False,
        "output_dir": "/tmp/k", "distributed_config": dist}
    assert cfg.dfx_options() == {"enable_chip_swimlane": 0, "enable_dump_args": 0,
                                 "enable_pmu": 2, "enable_dep_gen": False,
                                 "enable_scope_stats": False}
    assert cfg.run_options() == {
        "platform": "a5sim", "device_id": 3, "aicpu_thread_num": 4,
        "enable_chip_swimlane": 0, "enable_dump_args": 0, "enable_pmu": 2,
        "enable_dep_gen": False, "enable_scope_stats": False,
        "ring_task_window": None, "ring_heap": 4096, "ring_dep_pool": None}
    assert "memory_planner" not in RunConfig().compile_kwargs()


def test_distributed_config():
    d = DistributedConfig()
    assert (d.device_ids, d.num_sub_workers, d.runtime, d.aicpu_thread_num) == (
        [0], 0, "tensormap_and_ringbuffer", 0)
    with pytest.raises(ValueError, match=r"device_ids must be distinct"):
        DistributedConfig(device_ids=[1, 1])
    with pytest.raises(ValueError, match=r"device_ids must be a non-empty list"):
        DistributedConfig(device_ids=[])
    with pytest.raises(ValueError, match=r"aicpu_thread_num must be 0 \(arch default\) or >= 2"):
        DistributedConfig(aicpu_thread_num=1)


@pytest.mark.parametrize("loop", ["parallel", "spmd"])
def test_a_name_rebound_in_a_parallel_body_and_read_after_it_is_a_compile_error(tmp_path, builds, loop):
    header = "for i in pl.parallel(0, 32, 8):" if loop == "parallel" else "for i in pl.spmd(4):"
    label = "pl.parallel()" if loop == "parallel" else "pl.spmd()"
    src = textwrap.dedent("""\
        import pypto.language as pl


        @pl.jit
        def k(x: pl.Tensor[[32, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="init"):
                acc = pl.mul(x[0:8, :], 0.0)
            %s
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
                    acc = pl.add(acc, x[0:8, :])
            y[:, :] = acc
            return y
        """ % header)
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(32, 8), torch.zeros(8, 8))
    assert first_line(info.value) == (
        "%s:%d: 'acc' was rebound inside the %s body at line %d, whose iterations run independently "
        "and carry no value out of the loop, so here it still holds its value from before the loop; "
        "to carry it, use pl.range(..., init_values=(acc,)) with pl.yield_, or write the result "
        "into a tensor" % (path, line_of(src, "y[:, :] = acc"), label, line_of(src, header)))


def test_an_augmented_assignment_after_a_parallel_body_that_rebinds_the_name(tmp_path, builds):
    src = textwrap.dedent("""\
        import pypto.language as pl


        @pl.jit
        def k(x: pl.Tensor[[32, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
            n = 0
            for i in pl.parallel(0, 32, 8):
                n = n + 1
            n += 1
            return y
        """)
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(32, 8), torch.zeros(8, 8))
    assert str(info.value) == (
        "%s:9: 'n' was rebound inside the pl.parallel() body at line 7, whose iterations run "
        "independently and carry no value out of the loop, so here it still holds its value "
        "from before the loop; to carry it, use pl.range(..., init_values=(n,)) with pl.yield_, "
        "or write the result into a tensor\n"
        "    n += 1\n"
        "    ^" % path)


def test_a_name_rebound_in_a_parallel_body_may_be_assigned_again_after_it(tmp_path, builds):
    mod, _ = load(tmp_path, """\
        import pypto.language as pl


        @pl.jit
        def k(x: pl.Tensor[[32, 8], pl.FP32], y: pl.Out[pl.Tensor[[32, 8], pl.FP32]]):
            t = 0
            for i in pl.parallel(0, 32, 8):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
                    t = pl.add(x[i:i + 8, :], 1.0)
                    y[i:i + 8, :] = t
            t = 1
            return y
        """)
    mod.k.compile(torch.zeros(32, 8), torch.zeros(32, 8))


def test_a_tensor_rebound_by_assembling_into_itself_in_a_parallel_body_stays_readable(tmp_path, builds):
    mod, _ = load(tmp_path, """\
        import pypto.language as pl


        @pl.jit
        def k(x: pl.Tensor[[32, 8], pl.FP32], y: pl.Out[pl.Tensor[[32, 8], pl.FP32]]):
            buf = pl.create_tensor([32, 8], dtype=pl.FP32)
            for i in pl.spmd(4):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
                    t = pl.add(x[i * 8:i * 8 + 8, :], 1.0)
                buf = pl.assemble(buf, t, [i * 8, 0])
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
                y[:, :] = pl.add(buf, 0.0)
            return y
        """)
    mod.k.compile(torch.zeros(32, 8), torch.zeros(32, 8))


def test_a_failed_static_assert_with_a_runtime_message_names_the_kernel_line(tmp_path, builds):
    src = textwrap.dedent("""\
        import pypto.language as pl


        @pl.jit
        def k(x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INT64], y: pl.Out[pl.Tensor[[8], pl.FP32]]):
            pl.static_assert(False, n)
            return y
        """)
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(n=pl.RUNTIME)
    assert first_line(info.value) == "%s:%d: static assertion failed: n" % (path, line_of(src, "static_assert"))


def _source_text_sample(x, y):
    # Its lines start past line 1 of the file (AST lines are shifted).
    label = "π ≈ 3.14"  # non-ASCII: AST columns are UTF-8 byte offsets
    z = pl.add(x,
               y)
    return label, z


def test_kernel_source_text_is_each_nodes_exact_source():
    import ast

    from pypto.compiler.kernel_source import KernelSource

    ks = KernelSource(_source_text_sample)
    padded = "\n" * (ks._first_line - 1) + ks.source
    nodes = [n for n in ast.walk(ks.func) if hasattr(n, "end_col_offset")]
    assert len(nodes) > 10
    for node in nodes:
        assert ks.text(node) == (ast.get_source_segment(padded, node) or ast.unparse(node))
    call = next(n for n in nodes if isinstance(n, ast.Call))
    assert ks.text(call) == "pl.add(x,\n               y)"
    label = next(n for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str))
    assert ks.text(label) == '"π ≈ 3.14"'
