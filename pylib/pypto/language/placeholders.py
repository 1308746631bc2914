"""Stand-ins for the `pl.*` callables of op_table. Kernel bodies are parsed, never run, so
calling one of these from Python is always a mistake; the frontend recognises them by the
attributes set here."""

from pypto.language import op_table


def _eager_guard(kind, name):
    def placeholder(*args, **kwargs):
        raise RuntimeError(
            "pl.%s() was called from Python: %s are only meaningful inside a @pl.jit kernel "
            "body, which is compiled, not executed. Call the @pl.jit function (or its "
            "compile()) instead." % (name, kind))
    placeholder.__name__ = name
    placeholder.__qualname__ = name
    placeholder.__module__ = "pypto.language"
    return placeholder


def make_all():
    """name -> placeholder for every op, loop iterator and region of the op table."""
    made = {}
    for name in op_table.OPS:
        fn = _eager_guard("ops", name)
        fn._pypto_op = name
        made[name] = fn
    for name in op_table.LOOP_ITERATORS:
        fn = _eager_guard("loop iterators", name)
        fn._pypto_loop = name
        made[name] = fn
    for name in op_table.REGIONS:
        fn = _eager_guard("regions", name)
        fn._pypto_region = name
        made[name] = fn
    return made
