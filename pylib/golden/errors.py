"""Exceptions a run can raise; defined by the native core, re-exported here."""

from golden.native import native

SpecError = native.SpecError  # specs do not fit the kernel or each other (ValueError)
ArtifactError = native.ArtifactError  # a build directory that cannot be used (RuntimeError)
ProgramError = native.ProgramError  # a simulator program that cannot be loaded (ArtifactError)
KernelError = native.KernelError  # the kernel failed on the simulator, with file:line (RuntimeError)
ArgumentError = native.ArgumentError  # dispatch arguments that do not fit (ValueError)
DeviceUnavailableError = native.DeviceUnavailableError  # hardware platform without hardware
GoldenError = native.GoldenError  # golden_fn left an output that is not a tensor
ReportError = native.ReportError  # a report asked for (--junit FILE) could not be written (RuntimeError)

# Specs that do not fit the kernel's signature are found by the JIT while it specialises
# (pypto's KernelArgumentError, a TypeError, and KernelArgumentMismatchError, a ValueError).
# Under golden.run they are raised as these subclasses, which are SpecErrors too: one family
# a user catches (`except golden.SpecError`), while `except KernelArgumentError` still works.
from pypto.compiler import errors as _kernel_errors  # noqa: E402


class SpecArgumentError(_kernel_errors.KernelArgumentError, SpecError):
    """A spec that does not fit the kernel's signature (count, kind, name)."""


class SpecArgumentMismatchError(_kernel_errors.KernelArgumentMismatchError, SpecError):
    """A spec whose shape or dtype differs from the kernel's annotation."""


_SPEC_FORMS = {_kernel_errors.KernelArgumentError: SpecArgumentError,
               _kernel_errors.KernelArgumentMismatchError: SpecArgumentMismatchError}


def as_spec_error(error):
    """The SpecError form of a KernelArgument(Mismatch)Error raised for a run's specs: same
    message, attributes and traceback; `error` itself when it has none."""
    form = _SPEC_FORMS.get(type(error))
    if form is None:
        return error
    spec_error = form.__new__(form)
    spec_error.args = error.args
    spec_error.__dict__.update(error.__dict__)
    return spec_error.with_traceback(error.__traceback__)


# Tracebacks should name the class where users import it from.
for _cls in (SpecError, ArtifactError, ProgramError, KernelError, ArgumentError, DeviceUnavailableError, GoldenError,
             ReportError, SpecArgumentError, SpecArgumentMismatchError):
    _cls.__module__ = "golden"
del _cls
