"""`pl.array`: small fixed-size 1-D arrays (pl.array.create(n, dtype), `arr[i]`,
`arr[i] = v`). As in PyPTO (python/pypto/language/typing/array.py, src/ir/op/array_ops/
memory.cpp, src/codegen/array_op_codegen.cpp), an array has a compile-time positive extent
and an integer, BOOL or TASK_ID dtype, lives in the function or task that creates it, and
`arr[i] = v` writes its one storage in place (every name bound to it sees the write)."""

import ast

from pypto.compiler import ir_nodes, tys
from pypto.compiler.ir_nodes import const, is_const
from pypto.compiler.task_deps import array_ty
from pypto.language.dtypes import BOOL, BY_NAME, INDEX, TASK_ID


def _dtype_ok(dtype):
    return dtype is BOOL or dtype is TASK_ID or (
        dtype is not INDEX and not dtype.is_float and dtype.name.startswith(("int", "uint")))


def _integer_scalar(ty):
    """An index or element value: a scalar that is neither a float nor a task id (its dtype
    may be unknown)."""
    return not ty.is_tensor and ty.kind in ("scalar", None) and (
        ty.dtype is None or not (ty.dtype.is_float or ty.dtype is TASK_ID))


class ArrayMixin:
    """The array half of the expression translator."""

    def array_create_ty(self, node, label, args):
        (extent, _), (dtype_ir, _) = args[0], args[1]
        if not ir_nodes.is_compile_time_int(extent) or extent["v"] <= 0:
            raise self.error(node, "%s: the extent must be a positive compile-time int, got '%s'"
                             % (label, self.text(node.args[0]) if node.args else "?"))
        dtype = BY_NAME.get(dtype_ir["v"]) if is_const(dtype_ir, "dtype") else None
        if dtype is None or not _dtype_ok(dtype):
            raise self.error(node, "%s: the dtype must be an integer dtype, pl.BOOL or pl.TASK_ID, "
                             "got '%s'" % (label, self.text(node.args[1]) if len(node.args) > 1
                                           else "?"))
        return array_ty(extent["v"], dtype)

    def array_index(self, node, index_node, aty):
        """IR of a single array index, checked (integer; in range when compile-time)."""
        if isinstance(index_node, (ast.Tuple, ast.Slice)):
            raise self.error(node, "'%s': an array takes a single index (arrays are 1-D), as "
                             "in arr[i]" % self.text(node))
        ir, ty = self.texpr(index_node)
        if not _integer_scalar(ty):
            raise self.error(node, "'%s': the array index must be an integer scalar, got '%s'"
                             % (self.text(node), self.text(index_node)))
        if ir_nodes.is_compile_time_int(ir) and aty.shape and not 0 <= ir["v"] < aty.shape[0]:
            raise self.error(node, "'%s': index %d is outside the array of %d elements"
                             % (self.text(node), ir["v"], aty.shape[0]))
        return ir

    def array_read(self, node, base, bty):
        index = self.array_index(node, node.slice, bty)
        ir = ir_nodes.call("array_get_element", [base, index], {})
        return ir, tys.scalar(bty.dtype)

    def array_write(self, node, target, slot, tty, value, vty):
        """`arr[i] = v`: an in-place update statement."""
        index = self.array_index(target, target.slice, tty)
        name = target.value.id
        if tty.dtype is TASK_ID:
            if is_const(value, "none"):
                value = const("task_id", -1)
            elif not (vty.kind == "scalar" and vty.dtype is TASK_ID):
                raise self.error(node, "'%s': %s is a TASK_ID array, so the value must be a task "
                                 "id ('with pl.at(...) as tid', pl.system.task_dummy(...)) or None, "
                                 "got '%s'" % (self.text(target), name, self.text(node.value)))
        elif not _integer_scalar(vty):
            raise self.error(node, "'%s': the value written must be an integer scalar (%s is %s), "
                             "got '%s'" % (self.text(target), name, tty.dtype,
                                           self.text(node.value)))
        elif (vty.dtype is not None and tty.dtype is not None and vty.dtype is not tty.dtype
              and INDEX not in (vty.dtype, tty.dtype) and not is_const(value)):
            raise self.error(node, "'%s': the value is %s but %s is an array of %s; convert it "
                             "with pl.cast first" % (self.text(target), vty.dtype, name, tty.dtype))
        call = ir_nodes.call("array_update_element", [ir_nodes.var(slot), index, value], {})
        return ir_nodes.expr_stmt(self.stmt_line(node), call)

    def array_op_ty(self, node, op, label, args):
        """Static type of pl.array.create / get_element / update_element."""
        if op == "array_create":
            return self.array_create_ty(node, label, args)
        aty = args[0][1]
        if aty.kind != "array":
            raise self.error(node, "%s: the first argument must be a pl.array, got '%s'"
                             % (label, self.text(node.args[0]) if node.args else "?"))
        if op == "array_get_element":
            return tys.scalar(aty.dtype)
        return aty
