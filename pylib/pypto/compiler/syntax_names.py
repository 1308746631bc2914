"""Readable names of Python constructs the frontend rejects, for error messages."""

_NAMES = {
    "While": "'while' loop", "Try": "'try' statement", "TryStar": "'try' statement",
    "Raise": "'raise' statement", "Assert": "'assert' statement", "Delete": "'del' statement",
    "Import": "'import' statement", "ImportFrom": "'import' statement",
    "Global": "'global' statement", "Nonlocal": "'nonlocal' statement",
    "FunctionDef": "nested function definition", "AsyncFunctionDef": "nested function definition",
    "ClassDef": "class definition", "Break": "'break' statement",
    "Continue": "'continue' statement", "Match": "'match' statement",
    "AsyncFor": "'async for' loop", "AsyncWith": "'async with' statement",
    "Lambda": "lambda", "ListComp": "list comprehension", "SetComp": "set comprehension",
    "DictComp": "dict comprehension", "GeneratorExp": "generator expression",
    "IfExp": "conditional expression 'a if c else b'", "JoinedStr": "f-string",
    "NamedExpr": "assignment expression ':='", "Dict": "dict display", "Set": "set display",
    "Await": "'await'", "Yield": "'yield'", "YieldFrom": "'yield from'",
    "Starred": "starred expression", "Slice": "slice outside a subscript",
}


def unsupported(node):
    kind = type(node).__name__
    return "unsupported syntax in a kernel: %s" % _NAMES.get(kind, kind)
