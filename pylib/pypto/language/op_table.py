"""The one table of `pl.*` callables the frontend accepts. Adding an op = adding a row here
(and teaching the simulator, see host/sim/IR.md "Ops")."""

from collections import namedtuple

# params: positional parameter names (may also be passed by keyword);
# required: how many of them must be given; keywords: keyword-only names.
OpSpec = namedtuple("OpSpec", "params required keywords")

# Runtime ops: become {"e": "call", "op": name, ...} in the IR.
OPS = {
    "add": OpSpec(params=("lhs", "rhs"), required=2, keywords=()),
}

# Loop iterators usable as `for v in pl.<name>(start?, stop, step?)`; value = IR `kind`.
LOOP_ITERATORS = {
    "range": "range",
    "parallel": "parallel",
}
LOOP_PARAMS = ("start", "stop", "step")

# Region context managers usable as `with pl.<name>(...)`; value = accepted keywords.
REGIONS = {
    "at": ("level", "name_hint"),
}


def describe(name):
    """`pl.add(lhs, rhs)`-style signature text for error messages."""
    spec = OPS[name]
    parts = list(spec.params[:spec.required])
    parts += ["%s=None" % p for p in spec.params[spec.required:]]
    parts += ["%s=..." % k for k in spec.keywords]
    return "pl.%s(%s)" % (name, ", ".join(parts))
