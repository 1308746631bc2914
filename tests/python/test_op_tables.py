"""The frontend's op table (pylib/pypto/language/op_table.py) and the simulator's
(host/sim/ops/, OpTable::all(), read through _pypto_golden.op_table()) list the same ops
with the same arities and keywords, as host/sim/IR.md says they do.

How a row corresponds: the frontend passes positional parameters positionally and without
gaps, so a call has between `required` and `len(params)` positional arguments; those are
the simulator's `min_args` and `max_args`. Keyword-only parameters are the simulator's
`keywords`. Neither table records which arguments are tensors and which scalars (the
simulator decides that from the values), so kinds are not compared."""

import pytest

from golden.native import native
from pypto.language import op_table

FRONTEND = {**op_table.OPS, **op_table.PLD_OPS}
SIMULATOR = {op["name"]: op for op in native.op_table()}


def test_the_simulator_lists_each_op_once_with_its_shape():
    ops = native.op_table()
    assert len(SIMULATOR) == len(ops)
    for op in ops:
        assert sorted(op) == ["keywords", "max_args", "min_args", "name"]
        assert 0 <= op["min_args"] <= op["max_args"]
        assert all(isinstance(k, str) for k in op["keywords"])


def test_both_tables_name_the_same_ops():
    assert sorted(FRONTEND) == sorted(SIMULATOR)


@pytest.mark.parametrize("name", sorted(FRONTEND))
def test_an_op_takes_the_same_arguments_in_both_tables(name):
    spec, op = FRONTEND[name], SIMULATOR.get(name)
    assert op is not None, "pl.%s is in op_table.py but not registered in host/sim/ops/" % name
    assert (spec.required, len(spec.params)) == (op["min_args"], op["max_args"])
    assert sorted(spec.keywords) == sorted(op["keywords"])
