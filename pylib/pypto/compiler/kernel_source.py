"""The parsed source of one kernel function, with absolute line numbers, and the static
namespace (closure + globals + builtins) its names resolve in."""

import ast
import builtins
import inspect
import os
import textwrap

from pypto.compiler.errors import KernelCompileError

MISSING = object()  # "no static value" (None is a legitimate value)


def _char_column(text, byte_offset):
    """AST columns count UTF-8 bytes; the caret is placed by characters."""
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))


def stored_names(stmts):
    """Every name a list of statements assigns (loop targets, `as` targets included)."""
    return {n.id for stmt in stmts for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class KernelSource:
    def __init__(self, fn, has_self=False):
        self.fn = fn
        self.name = fn.__name__
        self.has_self = has_self  # a @pl.program method: the first parameter is `self`
        code = fn.__code__
        try:
            path = inspect.getsourcefile(fn) or code.co_filename
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as exc:
            raise KernelCompileError(code.co_filename, code.co_firstlineno,
                                     "cannot read the source of kernel '%s': %s" % (self.name, exc))
        self.source_file = os.path.abspath(path)
        self.source = textwrap.dedent("".join(lines))
        try:
            tree = ast.parse(self.source)
        except SyntaxError as exc:
            raise KernelCompileError(self.source_file, (exc.lineno or 1) + first - 1,
                                     "cannot parse kernel '%s': %s" % (self.name, exc.msg))
        ast.increment_lineno(tree, first - 1)
        # Split once: text() runs for most nodes, and ast.get_source_segment would split the
        # whole source on every call (quadratic in a model file's size).
        self._lines = self.source.split("\n")
        self._first_line = first
        func = tree.body[0] if tree.body else None
        if not isinstance(func, ast.FunctionDef):
            raise KernelCompileError(self.source_file, first,
                                     "kernel '%s' must be a plain 'def' function" % self.name)
        self.func = func
        self.closure = {}
        for var, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                self.closure[var] = cell.cell_contents
            except ValueError:  # closure variable not assigned yet
                pass
        # Every name the body binds is local to the kernel (Python scoping), even where it
        # is read before its first assignment in the text.
        self.bound_names = stored_names(func.body)
        args = [a.arg for a in func.args.args]
        self.self_name = args[0] if has_self and args else None
        self.arg_names = args[1:] if self.self_name else args

    def error(self, node_or_line, detail, cls=KernelCompileError):
        """An error at a line, or at an AST node of this kernel: then the message shows the
        node's source line with a caret under it."""
        if isinstance(node_or_line, int):
            return cls(self.source_file, node_or_line, detail)
        node = node_or_line
        line = node.lineno
        text = self.line_text(line)
        if text is None:
            return cls(self.source_file, line, detail)
        end = node.end_col_offset if node.end_lineno == line else None
        return cls(self.source_file, line, detail, _char_column(text, node.col_offset),
                   None if end is None else _char_column(text, end), text)

    def line_text(self, line):
        """The text of an (absolute) source line of the kernel, None outside it. The text
        is dedented as the parsed source is, so AST columns index into it."""
        k = line - self._first_line
        return self._lines[k] if 0 <= k < len(self._lines) else None

    def text(self, node):
        """Source text of an AST node (for messages and IR `text` fields)."""
        return self._segment(node) or ast.unparse(node)

    def _segment(self, node):
        """What ast.get_source_segment gives (AST columns are UTF-8 byte offsets), from the
        lines split once."""
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return None
        first, last = node.lineno - self._first_line, end_line - self._first_line
        if not 0 <= first <= last < len(self._lines):
            return None
        if first == last:
            return self._lines[first].encode()[node.col_offset:end_col].decode()
        head = self._lines[first].encode()[node.col_offset:].decode()
        tail = self._lines[last].encode()[:end_col].decode()
        return "\n".join([head] + self._lines[first + 1:last] + [tail])

    def lookup(self, name):
        """Static value of a non-local name: closure, then globals, then builtins."""
        if name in self.closure:
            return self.closure[name]
        glb = self.fn.__globals__
        if name in glb:
            return glb[name]
        blt = glb.get("__builtins__", builtins)
        blt = blt if isinstance(blt, dict) else vars(blt)
        return blt.get(name, MISSING)

    def eval_annotation(self, text):
        """Evaluate a string annotation (`from __future__ import annotations`)."""
        return eval(text, self.fn.__globals__, dict(self.closure))  # noqa: S307 - user's own code
