"""Exceptions a run can raise; defined by the native core, re-exported here."""

from golden.native import native

SpecError = native.SpecError  # specs do not fit the kernel or each other (ValueError)
ArtifactError = native.ArtifactError  # a build directory that cannot be used (RuntimeError)
ProgramError = native.ProgramError  # a simulator program that cannot be loaded (ArtifactError)
KernelError = native.KernelError  # the kernel failed on the simulator, with file:line (RuntimeError)
ArgumentError = native.ArgumentError  # dispatch arguments that do not fit (ValueError)
DeviceUnavailableError = native.DeviceUnavailableError  # hardware platform without hardware
GoldenError = native.GoldenError  # golden_fn left an output that is not a tensor

# Tracebacks should name the class where users import it from.
for _cls in (SpecError, ArtifactError, ProgramError, KernelError, ArgumentError, DeviceUnavailableError, GoldenError):
    _cls.__module__ = "golden"
del _cls
