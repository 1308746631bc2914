"""`pypto.ir.Program`: what `kernel.lower(...)` and `compiled.program` return.

It is the simulator program (host/sim/IR.md) as a dict, as before, with PyPTO's read-only
program surface on top — `name`, `functions` (a GlobalVar -> Function mapping), and
`get_function` / `get_global_var` — for scripts that inspect what a compile produced.
PyPTO's pass pipeline outlines each `pl.at` region of the entry into an InCore function,
named by its `name_hint`, else `<parent>_incore_<n>` (n counts the parent's regions); the
view lists the entry and those functions. PyPTO's later passes (AIC/AIV splits of mixed
kernels, groups) are not modelled: the simulator runs each region as written.
"""


class GlobalVar:
    """A function's name in a program (PyPTO keys `Program.functions` by these)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, GlobalVar) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "GlobalVar(%r)" % self.name


class Function:
    """One function of a lowered program: its name, FunctionType, parameter names and the
    source line it starts at."""

    __slots__ = ("name", "func_type", "param_names", "line")

    def __init__(self, name, func_type, param_names, line):
        self.name, self.func_type, self.param_names, self.line = name, func_type, param_names, line

    def __repr__(self):
        return "Function(%r, %s)" % (self.name, self.func_type)


def _regions(stmts, found):
    """Every `at` statement under `stmts`, in program order, nested ones after their parent."""
    for s in stmts:
        if s.get("s") == "at" and not s.get("part"):  # a later part of a task is the same task
            found.append(s)
        for key in ("body", "then", "else"):
            if isinstance(s.get(key), list):
                _regions(s[key], found)
    return found


def _unique(name, taken):
    if name not in taken:
        return name
    n = 1
    while "%s_%d" % (name, n) in taken:
        n += 1
    return "%s_%d" % (name, n)


def _outlined(entry):
    """The entry's `pl.at` regions as PyPTO's outliner names them."""
    from pypto.language.types import FunctionType  # pypto.language imports this module
    taken, functions = {entry["name"]}, []
    for counter, region in enumerate(_regions(entry["body"], [])):
        name = _unique(region.get("name") or "%s_incore_%d" % (entry["name"], counter), taken)
        taken.add(name)
        functions.append(Function(name, FunctionType.InCore, [], region["line"]))
    return functions


class Program(dict):
    """The simulator program dict, with PyPTO's `Program` attributes read-only on top."""

    @property
    def name(self):
        return self["entry"]

    @property
    def functions(self):
        from pypto.language.types import FunctionType
        entry = self["functions"][0]
        params = [p["name"] for p in entry["params"]]
        found = [Function(entry["name"], FunctionType.Orchestration, params, entry["line"])]
        found += _outlined(entry)
        # PyPTO sorts a program's functions by name.
        return {GlobalVar(f.name): f for f in sorted(found, key=lambda f: f.name)}

    def get_function(self, name):
        return next((f for f in self.functions.values() if f.name == name), None)

    def get_global_var(self, name):
        return next((g for g in self.functions if g.name == name), None)
