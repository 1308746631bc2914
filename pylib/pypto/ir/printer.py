"""`pypto.ir.printer`: PyPTO prints its IR as DSL text. There is no PyPTO IR here to print."""


def python_print(node, prefix="pl", **kwargs):
    raise NotImplementedError(
        "pypto.ir.printer.python_print(): pypto-golden builds no PyPTO IR to print; its frontend "
        "translates a kernel straight into a simulator program. Print that instead with "
        "pypto.compiler.ir_text.program_text(compiled.program), compiled being what "
        "kernel.compile(...) returns.")
