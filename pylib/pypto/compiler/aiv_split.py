"""`for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.X)` regions, pl.aiv_shard and the AIV
lane index (pl.get_subblock_idx) inside them.

PyPTO's meaning (python/pypto/language/dsl_api.py `split_aiv`, op/tile_ops.py `aiv_shard`,
docs/en/dev/passes/20-lower_auto_vector_split.md of the PyPTO repository): the region's body
runs on the two AIV lanes of a core, `aiv_id` being the lane (0 or 1).
- mode=NONE: both lanes run the whole body; the author splits the work by aiv_id (e.g.
  `pl.range(aiv_id, n, 2)`); pl.aiv_shard keeps its operand's shape.
- UP_DOWN / LEFT_RIGHT with pl.aiv_shard in the body: the body is already per lane, and
  pl.aiv_shard(x) is this lane's half of x (rows / columns [lane * h, lane * h + h), h the
  ceiling half; the valid region is cut to the window, as the lane's true extent is).
- UP_DOWN / LEFT_RIGHT without one: the compiler halves every tile of the full-width body
  between the lanes, so together they compute the body once at full width.
The first two are a `parallel` loop over the lanes here (the lanes run concurrently on the
device too); the third is its body, translated once. In the third the lane index has no
meaning a full-width body could use, so reading it is a compile error."""

import ast

from pypto.compiler import ir_nodes, tys
from pypto.compiler.ir_nodes import const
from pypto.compiler.kernel_source import stored_names
from pypto.compiler.tys import Ty
from pypto.language.dtypes import INDEX
from pypto.language.enums import SplitMode

LANES = 2  # AIV lanes per core, hardware-fixed
_HINT = ("use 'for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):' (both lanes run the "
         "body, dispatching by aiv_id) or write the lane's operands with pl.aiv_shard")
_BOUNDARY_OPS = ("aiv_shard", "aic_gather")


class AivRegion:
    """An enclosing pl.split_aiv region: its mode and lane index (None in a full-width
    data-parallel body, where the compiler does the halving)."""

    __slots__ = ("mode", "lane", "line")

    def __init__(self, mode, lane, line):
        self.mode, self.lane, self.line = mode, lane, line


class AivSplitMixin:
    """The pl.split_aiv half of statements.FunctionTranslator."""

    def split_aiv_loop(self, node, it, label):
        if self.aiv_regions:
            raise self.error(node, "nested 'for ... in pl.split_aiv(...)' is not allowed: the "
                             "pl.split_aiv region at line %d already represents the two AIV lanes"
                             % self.aiv_regions[-1].line)
        mode = self._split_mode(node, it, label)
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "for ... in pl.split_aiv(...) must use a single loop variable, "
                             "got '%s'" % self.text(node.target))
        if node.orelse:
            raise self.error(node, "'for ... else' is not supported in a kernel")
        if mode is not SplitMode.NONE and not self._has_boundary_op(node.body):
            return self._full_width_region(node, mode)
        lane = self.bind(node.target.id)
        rebound = stored_names(node.body) | {node.target.id}
        outer = {self.scope.names[n]: n for n in rebound - {node.target.id}
                 if n in self.scope.names and self.scope.names[n] in self.env}
        with self.region(aiv=AivRegion(mode, ir_nodes.var(lane), node.lineno), incore=True):
            body = self._loop_body(node.body, "parallel", lane, rebound, None)
        joins = self._drop_rebound(node, label, outer, body, why=(
            "which runs once per AIV lane, so here it still holds its value from before the "
            "region; to keep a lane's result, write it into a tensor"))
        self._drop_region_locals(node, label, rebound - set(outer.values()) - {node.target.id})
        loop = ir_nodes.for_(self.stmt_line(node), "parallel", lane, const("int64", 0),
                             const("int64", LANES), const("int64", 1), body,
                             ordered=self._ordered(body), joins=joins)
        return [loop] if self.incore else [ir_nodes.at(self.stmt_line(node), None, [loop], task=self.task_fields())]

    def _split_mode(self, node, it, label):
        """Checks n (the integer 2) and mode= as PyPTO does; returns the SplitMode."""
        if len(it.args) != 1 or any(isinstance(a, ast.Starred) for a in it.args):
            raise self.error(node, "%s takes exactly one positional argument (n, the AIV sub-core "
                             "count), got %d" % (label, len(it.args)))
        n = self.expr(it.args[0])
        if not ir_nodes.is_compile_time_int(n) or n["v"] != LANES:
            raise self.error(node, "pl.split_aiv(n) requires n == %d (the AIV sub-core count is "
                             "hardware-fixed at %d), got '%s'" % (LANES, LANES, self.text(it.args[0])))
        keywords = self._region_keywords(node, it, label, ("mode",))
        if "mode" not in keywords:
            raise self.error(node, "%s requires mode= (pl.SplitMode.NONE for task-parallel lanes, "
                             "pl.SplitMode.UP_DOWN / LEFT_RIGHT for data-parallel halving)" % label)
        mode = self._static(keywords["mode"])
        if not isinstance(mode, SplitMode):
            raise self.error(node, "%s: mode must be a pl.SplitMode member (NONE, UP_DOWN or "
                             "LEFT_RIGHT), got '%s'" % (label, self.text(keywords["mode"])))
        return mode

    def _has_boundary_op(self, stmts):
        """Whether the body names a cube/vector crossing (pl.aiv_shard / pl.aic_gather), which
        makes a data-parallel body a per-lane one."""
        for stmt in stmts:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Call) and getattr(
                        self.static_value(sub.func), "_pypto_special", None) in _BOUNDARY_OPS:
                    return True
        return False

    def _full_width_region(self, node, mode):
        """A data-parallel body without a boundary op: the lanes' halves together are the
        body at full width, translated once."""
        slot = self.bind(node.target.id)
        self.env[slot] = Ty(dropped=self._no_lane_text(node.target.id, mode, node.lineno))
        with self.region(aiv=AivRegion(mode, None, node.lineno), incore=True):
            body = self.block(node.body)
        return body if self.incore else [ir_nodes.at(self.stmt_line(node), None, body, task=self.task_fields())]

    @staticmethod
    def _no_lane_text(what, mode, line):
        return ("'%s': the pl.split_aiv(mode=pl.SplitMode.%s) region at line %d has no "
                "pl.aiv_shard, so the compiler halves its tiles itself and its body is written "
                "at full width, where the AIV lane index has no meaning; %s"
                % (what, mode.name, line, _HINT))

    def _drop_region_locals(self, node, label, names):
        """Names first bound inside the lanes' body have one value per lane: none after it."""
        for name in sorted(names):
            slot = self.scope.names.get(name)
            if slot is not None:
                self.env[slot] = Ty(dropped=(
                    "'%s' was bound inside the %s body at line %d, which runs once per AIV lane, "
                    "so it has no single value after the region; to keep a lane's result, write "
                    "it into a tensor" % (name, label, node.lineno)))

    # -- inside a region ----------------------------------------------------------------
    def subblock_idx(self, node, label):
        """pl.get_subblock_idx(): the lane of the enclosing region, 0 outside one."""
        if not self.aiv_regions:
            ir = const("int64", 0)
            return ir, tys.of_pure(ir)
        region = self.aiv_regions[-1]
        if region.lane is None:
            raise self.error(node, self._no_lane_text(label, region.mode, region.line))
        return region.lane, tys.scalar(INDEX)

    def aiv_shard(self, node, label):
        if not self.aiv_regions:
            raise self.error(node, "pl.aiv_shard must be used inside a 'for aiv_id in "
                             "pl.split_aiv(...)' loop, which supplies the split mode")
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise self.error(node, "%s takes exactly one positional argument (the operand to "
                             "shard)" % label)
        region = self.aiv_regions[-1]
        if region.lane is None:  # written in a helper spliced into a full-width body
            raise self.error(node, "%s must be written directly in the body of the "
                             "pl.split_aiv region at line %d (not in a function it calls)"
                             % (label, region.line))
        x, ty = self.texpr(node.args[0])
        if not ty.is_tensor or (ty.shape is not None and len(ty.shape) != 2):
            what = tys.describe(ty) if not ty.is_tensor else "a %d-D tensor" % len(ty.shape)
            raise self.error(node, "%s: the operand must be a 2-D tile or tensor, got '%s' (%s)"
                             % (label, self.text(node.args[0]), what))
        if region.mode is SplitMode.NONE:
            return x, ty  # no split axis: the whole operand crosses
        axis = 0 if region.mode is SplitMode.UP_DOWN else 1
        shape = ty.shape if ty.shape is not None and ty.stable else (None, None)
        extents = [const("int64", d) if d is not None else self.dim_call(x, k)
                   for k, d in enumerate(shape)]
        # The ceiling half: an odd extent leaves lane 1 one row (column) of padding.
        d = shape[axis]
        half = const("int64", (d + 1) // 2) if d is not None else ir_nodes.binop(
            "floordiv", ir_nodes.binop("add", extents[axis], const("int64", 1)), const("int64", 2))
        extents[axis] = half
        offsets = [const("int64", 0), const("int64", 0)]
        offsets[axis] = ir_nodes.binop("mul", region.lane, half)
        out_shape = list(shape)
        out_shape[axis] = (d + 1) // 2 if d is not None else None
        # pl.load: a copy, as the crossing is (the lane gets a buffer of its own).
        ir = ir_nodes.call("load", [x, ir_nodes.list_(offsets), ir_nodes.list_(extents)], {})
        return ir, tys.tensor(ty.dtype, out_shape)
