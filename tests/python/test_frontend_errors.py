"""How compile errors read: `<file>:<line>: <detail>`, then the source line and carets under
the construct, as a Python traceback shows them; and the frontend's error boundary, which
turns a bug of the frontend into a located "internal error"."""

import textwrap

import pytest
import torch

from pypto.compiler.errors import KernelCompileError
from pypto.compiler.expressions import ExprTranslator
from pypto.compiler.statements import FunctionTranslator
from test_frontend import first_line, load

HEAD = """\
import pypto.language as pl


@pl.jit
def k(x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]]):
"""


def compile_error(tmp_path, body):
    """(error, path, source) of compiling a kernel whose body is `body`."""
    src = HEAD + textwrap.indent(textwrap.dedent(body), "    ")
    mod, path = load(tmp_path, src)
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8), torch.zeros(8))
    return info.value, path, src


def test_the_source_line_and_carets_follow_the_file_line_prefix(tmp_path, builds):
    err, path, src = compile_error(tmp_path, """\
        t = x ** 2
        return y
        """)
    assert str(err) == (
        "%s:6: operator '**' is not supported in a kernel\n"
        "    t = x ** 2\n"
        "        ^^^^^^" % path)
    assert (err.source_file, err.line, err.column) == (path, 6, 8)
    assert err.detail == "operator '**' is not supported in a kernel"


def test_the_caret_is_under_the_innermost_construct_in_a_nested_block(tmp_path, builds):
    err, path, _ = compile_error(tmp_path, """\
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                y[0:8] = pl.ad(x, x)
        return y
        """)
    assert str(err) == (
        "%s:8: unknown op 'pl.ad' (did you mean pl.add?)\n"
        "    y[0:8] = pl.ad(x, x)\n"
        "             ^^^^^^^^^^^" % path)
    assert err.column == 21


def test_columns_count_characters_not_bytes(tmp_path, builds):
    err, path, _ = compile_error(tmp_path, """\
        t = ("é→", x ** 2)
        return y
        """)
    assert str(err).split("\n")[1:] == ['    t = ("é→", x ** 2)',
                                        '               ^^^^^^']


def test_a_construct_spanning_lines_gets_one_caret(tmp_path, builds):
    err, path, _ = compile_error(tmp_path, """\
        y[0:8] = pl.frobnicate(
            x, x)
        return y
        """)
    assert str(err) == (
        "%s:6: unknown op 'pl.frobnicate'\n"
        "    y[0:8] = pl.frobnicate(\n"
        "             ^" % path)


def test_a_method_of_a_program_is_shown_without_the_class_indentation(tmp_path, builds):
    mod, path = load(tmp_path, """\
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[4], pl.FP32]):
                self.nope(x)
        """)
    with pytest.raises(KernelCompileError) as info:
        mod.P.compile()
    assert str(info.value) == (
        "%s:7: 'self.nope' is not a @pl.function of this @pl.program\n"
        "    self.nope(x)\n"
        "    ^^^^^^^^^^^^" % path)


def test_an_error_known_only_by_line_is_the_first_line_alone(tmp_path, builds):
    err = KernelCompileError("/k.py", 3, "something is wrong")
    assert str(err) == "/k.py:3: something is wrong"
    assert err.column is None
    # Argument errors name the parameter's line only.
    mod, path = load(tmp_path, HEAD + "    return y\n")
    with pytest.raises(KernelCompileError) as info:
        mod.k.compile(torch.zeros(8, dtype=torch.int32), torch.zeros(8))
    assert str(info.value) == ("%s:5: parameter 'x': annotated dtype fp32 but the tensor passed "
                               "has dtype int32" % path)


# ---------------------------------------------------------------- the error boundary

def test_a_frontend_bug_in_an_expression_is_a_located_internal_error(tmp_path, builds,
                                                                      monkeypatch):
    bug = RuntimeError("boom")

    def broken(self, node):
        raise bug

    monkeypatch.setattr(ExprTranslator, "_e_Compare", broken)
    err, path, src = compile_error(tmp_path, """\
        with pl.at(level=pl.Level.CORE_GROUP):
            y[0:8] = pl.add(x, x[0] > 0)
        return y
        """)
    assert str(err) == (
        "%s:7: internal error in the frontend while translating this expression: "
        "RuntimeError: boom\n"
        "    y[0:8] = pl.add(x, x[0] > 0)\n"
        "                       ^^^^^^^^" % path)
    assert (err.line, err.column) == (7, 27)
    assert err.__cause__ is bug
    assert type(err) is KernelCompileError


def test_a_frontend_bug_in_a_statement_is_a_located_internal_error(tmp_path, builds,
                                                                   monkeypatch):
    monkeypatch.setattr(FunctionTranslator, "_s_Return",
                        lambda self, node: {}["no such key"])
    err, path, src = compile_error(tmp_path, "return y\n")
    assert first_line(err) == ("%s:6: internal error in the frontend while translating this "
                               "statement: KeyError: 'no such key'" % path)
    assert str(err).split("\n")[1:] == ["    return y", "    ^^^^^^^^"]
    assert isinstance(err.__cause__, KeyError)


def test_compile_errors_pass_the_boundary_unchanged(tmp_path, builds, monkeypatch):
    raised = KernelCompileError("/elsewhere.py", 1, "from deep inside")

    def deep(self, node):
        raise raised

    monkeypatch.setattr(ExprTranslator, "_e_BinOp", deep)
    err, _, _ = compile_error(tmp_path, "t = x + 1\nreturn y\n")
    assert err is raised and err.__cause__ is None
