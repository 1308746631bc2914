"""Errors a kernel author can cause. Every message starts with `<file>:<line>: ` so it points
at the kernel source; where the column is known, the source line and a caret under the
construct follow, as in a Python traceback:

    /path/kernel.py:12: operator '**' is not supported in a kernel
        t = x ** 2
            ^^^^^^
"""


class KernelCompileError(Exception):
    """The kernel cannot be compiled: unsupported syntax, unknown op, bad arity, ...

    source_file, line, detail: where and what (the message's first line). column: 0-based
    character offset of the construct in `source_text` (the text of that line), None when
    unknown; end_column: where the construct ends on that line (None: unknown or it
    continues on a later line)."""

    def __init__(self, source_file, line, detail, column=None, end_column=None,
                 source_text=None):
        message = "%s:%s: %s" % (source_file, line, detail)
        if column is not None and source_text:
            message += "\n" + source_excerpt(source_text, column, end_column)
        super().__init__(message)
        self.source_file = source_file
        self.line = line
        self.detail = detail
        self.column = column


class KernelArgumentError(KernelCompileError, TypeError):
    """Arguments do not fit the kernel signature (count, kind, pl.RUNTIME misuse, bare
    pl.Tensor in signature mode). A TypeError, as in pypto, plus the file:line."""


class KernelArgumentMismatchError(KernelCompileError, ValueError):
    """A sample tensor's shape or dtype differs from the parameter's full annotation."""


def source_excerpt(text, column, end_column=None):
    """The source line, indented 4 spaces instead of its own indentation, and under it `^`
    from `column` to `end_column` (a single `^` when the end is not on this line)."""
    code = text.rstrip()
    indent = len(code) - len(code.lstrip())
    start = max(column - indent, 0)
    width = 1 if end_column is None else max(min(end_column, len(code)) - indent - start, 1)
    return "    %s\n    %s%s" % (code[indent:], " " * start, "^" * width)
