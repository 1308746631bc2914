"""A readable listing of a sim_program (written to passes_dump/ when dump_passes is on):
one statement per line, prefixed with its kernel source line."""

from pypto.compiler import ir_nodes

_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
            "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
            "and": "and", "or": "or"}
_PLAIN_CONSTS = ("int64", "fp32", "bool", "str", "none", "dtype")


def _idx(i, slots):
    if ir_nodes.is_index_idx(i):
        return _expr(i["v"], slots)
    lo = "" if i["lo"] is None else _expr(i["lo"], slots)
    hi = "" if i["hi"] is None else _expr(i["hi"], slots)
    return "%s:%s" % (lo, hi)


def _expr(e, slots, nested=False):
    kind = ir_nodes.expr_kind(e)
    if kind == "const":
        if e["dtype"] == "dtype":
            return e["v"]
        if e["dtype"] in _PLAIN_CONSTS:  # Python literal dtypes need no tag
            return repr(e["v"])
        return "%r:%s" % (e["v"], e["dtype"])
    if kind == "var":
        return slots[e["slot"]]
    if kind == "binop":
        text = "%s %s %s" % (_expr(e["lhs"], slots, True), _SYMBOLS[e["op"]],
                             _expr(e["rhs"], slots, True))
        return "(%s)" % text if nested else text
    if kind == "unary":
        return ("-%s" if e["op"] == "neg" else "not %s") % _expr(e["operand"], slots, True)
    if kind == "subscript":
        return "%s[%s]" % (_expr(e["base"], slots, True),
                           ", ".join(_idx(i, slots) for i in e["index"]))
    if kind == "call":
        args = [_expr(a, slots) for a in e["args"]]
        args += ["%s=%s" % (k, _expr(v, slots)) for k, v in e["kwargs"].items()]
        return "%s(%s)" % (e["op"], ", ".join(args))
    if kind == "tuple":
        return "(%s)" % ", ".join(_expr(i, slots) for i in e["items"])
    if kind == "list":
        return "[%s]" % ", ".join(_expr(i, slots) for i in e["items"])
    return "<%s>" % kind


def _task(s, slots):
    """A task's fields: ` as tid [deps=[...]] [manual]`."""
    out = " as %s" % slots[s["tid"]] if "tid" in s else ""
    if "deps" in s:
        out += " deps=[%s]" % ", ".join(_expr(d, slots) for d in s["deps"])
    if "no_dep" in s:
        out += " no_dep=[%s]" % ", ".join(slots[k] for k in s["no_dep"])
    return out + (" manual" if s.get("manual") else "")


def _stmts(body, slots, depth, out, line=None):
    pad = "  " * depth
    if not body and line is not None:  # an empty loop body or branch
        out.append("%5d | %spass" % (line, pad))
    for s in body:
        kind, line = ir_nodes.stmt_kind(s), "%5d | " % s["line"]
        if kind == "for":
            out.append("%s%sfor %s in %s(%s, %s, %s)%s:%s%s" % (
                line, pad, slots[s["var"]], s["kind"], _expr(s["start"], slots),
                _expr(s["stop"], slots), _expr(s["step"], slots), _task(s, slots),
                "  # ordered" if s.get("ordered") else "",
                "".join("  # joins %s (%d)" % (slots[slot], site) for slot, site in s.get("joins", ()))))
            _stmts(s["body"], slots, depth + 1, out, s["line"])
        elif kind == "at":
            out.append("%s%sat%s%s:" % (line, pad, "" if s["name"] is None else " " + repr(s["name"]),
                                       _task(s, slots)))
            _stmts(s["body"], slots, depth + 1, out, s["line"])
        elif kind == "launch":
            out.append("%s%slaunch %s on rank %s:" % (line, pad, s["name"], _expr(s["rank"], slots)))
            _stmts(s["body"], slots, depth + 1, out, s["line"])
        elif kind in ("join", "barrier"):
            out.append("%s%s%s" % (line, pad, kind))
        elif kind == "if":
            out.append("%s%sif %s:" % (line, pad, _expr(s["cond"], slots)))
            _stmts(s["then"], slots, depth + 1, out, s["line"])
            if s["else"]:
                out.append("%s%selse:" % (line, pad))
                _stmts(s["else"], slots, depth + 1, out)
        elif kind == "assign":
            out.append("%s%s%s = %s" % (line, pad, slots[s["slot"]], _expr(s["value"], slots)))
        elif kind == "unpack":
            out.append("%s%s%s = %s" % (line, pad, ", ".join(slots[i] for i in s["slots"]),
                                        _expr(s["value"], slots)))
        elif kind == "write":
            out.append("%s%s%s[%s] = %s" % (line, pad, slots[s["target"]],
                                            ", ".join(_idx(i, slots) for i in s["index"]),
                                            _expr(s["value"], slots)))
        elif kind == "return":
            out.append("%s%sreturn %s" % (line, pad,
                                          ", ".join(_expr(v, slots) for v in s["values"])))
        else:
            out.append("%s%s%s" % (line, pad, _expr(s["value"], slots)))


def program_text(program):
    out = ["# %s (%s), sim_program version %d"
           % (program["entry"], program["source_file"], program["version"])]
    for fn in program["functions"]:
        out.append("%5d | def %s:" % (fn["line"], fn["name"]))
        for i, p in enumerate(fn["params"]):
            if p["kind"] == "tensor":
                out.append("      |   # param %d %s: tensor %s %s %s"
                           % (i, p["name"], p["direction"], p["shape"], p["dtype"]))
            else:
                out.append("      |   # param %d %s: scalar %s (%s)" % (
                    i, p["name"], p["dtype"], "runtime" if p["runtime"] else "specialised"))
        _stmts(fn["body"], fn["slots"], 1, out)
    return "\n".join(out) + "\n"
