"""`pypto.runtime.pto_isa_include_dir` / `ensure_pto_isa_root`: in PyPTO, the pinned PTO-ISA
checkout whose headers hand-written C++ kernels (pl.jit.extern) compile against. The simulator
compiles no C++, so there is no checkout to resolve: calling either is an error that says so."""


def _no_pto_isa(name):
    return RuntimeError(
        f"pypto.runtime.{name}(): pypto-golden has no PTO-ISA checkout; it simulates kernels "
        "instead of compiling them to C++, so kernels that need the PTO-ISA headers (pl.jit.extern "
        "C++ sources) cannot run on it")


def ensure_pto_isa_root():
    raise _no_pto_isa("ensure_pto_isa_root")


def pto_isa_include_dir():
    raise _no_pto_isa("pto_isa_include_dir")
