"""pypto.compiler.ir_nodes: every node has the fields host/sim/IR.md gives it, in that order
(the order is what sim_program.json is written in), and the predicates mean what they say."""

import json

from pypto.compiler import ir_nodes as n

ONE, TWO = n.const("int64", 1), n.const("int64", 2)


def keys(node):
    return list(json.loads(json.dumps(node)))


def test_expression_nodes_have_the_ir_fields_in_order():
    assert keys(n.const("fp32", 1.5)) == ["e", "dtype", "v"]
    assert keys(n.var(3)) == ["e", "slot"]
    assert keys(n.binop("add", ONE, TWO)) == ["e", "op", "lhs", "rhs"]
    assert keys(n.unary("neg", ONE)) == ["e", "op", "operand"]
    assert keys(n.subscript(n.var(0), [n.index_idx(ONE)], "x[1]")) == ["e", "base", "index", "text"]
    assert keys(n.call("add", [ONE, TWO], {})) == ["e", "op", "args", "kwargs"]
    assert n.tuple_(iter([ONE, TWO])) == {"e": "tuple", "items": [ONE, TWO]}
    assert n.list_([ONE]) == {"e": "list", "items": [ONE]}
    assert n.slice_idx(None, TWO) == {"k": "slice", "lo": None, "hi": TWO}
    assert n.index_idx(ONE) == {"k": "index", "v": ONE}


def test_statement_nodes_have_the_ir_fields_in_order():
    assert keys(n.for_(3, "range", 1, ONE, TWO, ONE, [])) == [
        "s", "line", "kind", "var", "start", "stop", "step", "body"]
    assert keys(n.at(3, "t", [])) == ["s", "line", "name", "body"]
    assert keys(n.assign(3, 1, ONE)) == ["s", "line", "slot", "value"]
    assert keys(n.unpack(3, [1, 2], n.var(0))) == ["s", "line", "slots", "value"]
    assert keys(n.write(3, 0, [], "y[0]", ONE)) == ["s", "line", "target", "index", "text", "value"]
    assert keys(n.expr_stmt(3, ONE)) == ["s", "line", "value"]
    assert keys(n.if_(3, ONE, [], [])) == ["s", "line", "cond", "then", "else"]
    assert keys(n.return_(3, [ONE])) == ["s", "line", "values"]
    assert n.blocks(n.if_(3, ONE, ["a"], ["b"])) == [["a"], ["b"]]
    assert n.blocks(n.assign(3, 1, ONE)) == []


def test_predicates():
    assert n.is_const(ONE) and n.is_const(ONE, "int64") and n.is_const(ONE, ("bool", "int64"))
    assert not n.is_const(ONE, "fp32") and not n.is_const(None) and not n.is_const(n.var(0))
    assert n.is_var(n.var(2)) and n.is_var(n.var(2), 2) and not n.is_var(n.var(2), 3)
    assert n.is_sequence(n.list_([])) and n.is_sequence(n.tuple_([])) and not n.is_sequence(ONE)
    assert n.is_pure(n.tuple_([ONE, n.list_([TWO])])) and not n.is_pure(n.list_([n.var(0)]))
    # Indices, axes and extents: the integer dtypes a shape can hold, not bool or uint8.
    for dtype, ok in (("int64", True), ("int32", True), ("index", True), ("bool", False),
                      ("uint8", False), ("fp32", False)):
        assert n.is_compile_time_int(n.const(dtype, 1)) is ok
    assert not n.is_compile_time_int(None)
    assert n.is_integral_const(n.const("bool", True)) and n.is_integral_const(n.const("uint8", 1))
    assert not n.is_integral_const(n.const("fp32", 1.0))


def test_int64_range_and_wrap_around():
    assert n.fits_int64(2**63 - 1) and n.fits_int64(-2**63)
    assert not n.fits_int64(2**63) and not n.fits_int64(-2**63 - 1)
    assert n.wrap_int64(2**63) == -2**63 and n.wrap_int64(-2**63 - 1) == 2**63 - 1
    assert n.wrap_int64(5) == 5
