"""Errors a kernel author can cause. Every message starts with `<file>:<line>: ` so it points
at the kernel source."""


class KernelCompileError(Exception):
    """The kernel cannot be compiled: unsupported syntax, unknown op, bad arity, ..."""

    def __init__(self, source_file, line, detail):
        super().__init__("%s:%s: %s" % (source_file, line, detail))
        self.source_file = source_file
        self.line = line
        self.detail = detail


class KernelArgumentError(KernelCompileError, TypeError):
    """Arguments do not fit the kernel signature (count, kind, pl.RUNTIME misuse, bare
    pl.Tensor in signature mode). A TypeError, as in pypto, plus the file:line."""


class KernelArgumentMismatchError(KernelCompileError, ValueError):
    """A sample tensor's shape or dtype differs from the parameter's full annotation."""
