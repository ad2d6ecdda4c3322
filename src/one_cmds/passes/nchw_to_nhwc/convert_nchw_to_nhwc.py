"""``convert_nchw_to_nhwc`` (optimization.md §5.25; reference ConvertNCHWToNHWCPass).

The model is taken to compute in NCHW. On subgraph 0:
1. Operators that already compute in NHWC are left alone: those reached forward from a "pre"
   operator (Transpose by [0,2,3,1], or a Reshape of static rank-4 shapes moving the dimensions
   the same way) before the "post" operators (Transpose by [0,3,1,2], or such a Reshape) that
   close the region; a region that reaches a graph output or another pre operator is not closed
   and marks nothing. This finds the convolutions an ONNX-style import wraps in Transposes.
2. Every other operator of a supported kind whose tensors have static shapes is rewritten by its
   rule (:mod:`.layout_rules`) to compute in NHWC between Transposes.
3. With ``nchw_to_nhwc_input_shape`` every rank-4 graph input [N,C,H,W] becomes [N,H,W,C],
   followed by a Transpose back to NCHW for its readers (no origin); with
   ``nchw_to_nhwc_output_shape`` every rank-4 graph output is transposed to NHWC (the new output
   keeps the output's name; origin: its producer's). Without them the interface is unchanged.
``remove_redundant_transpose`` then cancels the Transposes that meet. Returns the number of
operators, inputs and outputs converted.

Reference: runs on every subgraph (also permuting the inputs and outputs of called subgraphs)
and skips inputs and outputs of unknown dimensions; here: subgraph 0 only (the graph the NCHW
phase of §4.1 prepares), and every rank-4 input and output is permuted, as the validation of §6
expects every rank-4 output permuted.
"""

from __future__ import annotations

from ...ir import NO_ORIGIN, Model, Operator, Tensor
from .. import PassOptions, model_pass
from ..toolkit import GraphEditor, origin_of
from ..toolkit.transpose import NCHW_TO_NHWC, NHWC_TO_NCHW, add_transpose, transpose_perm
from .layout_rules import RULES


@model_pass("convert_nchw_to_nhwc")
def convert_nchw_to_nhwc(model: Model, options: PassOptions) -> int:
    flags = options.passes
    g = GraphEditor(model, 0)
    nhwc = _already_nhwc(g)
    rewrites = 0
    if flags.get("nchw_to_nhwc_input_shape"):
        rewrites += sum(_convert_input(g, t) for t in list(g.graph.inputs))
    for op in g.ops(*RULES):
        static = all(t.is_static for t in (*op.inputs, *op.outputs) if t is not None)
        if id(op) not in nhwc and static and RULES[op.opcode](g, op):
            rewrites += 1
    if flags.get("nchw_to_nhwc_output_shape"):
        rewrites += sum(_convert_output(g, t) for t in list(g.graph.outputs))
    g.commit()
    return rewrites


def _moves(op: Operator, perm: tuple[int, ...]) -> bool:
    """Whether ``op`` is a Transpose by ``perm``, or a Reshape between static rank-4 shapes that
    moves the dimensions as that Transpose would."""
    if op.opcode == "TRANSPOSE":
        return transpose_perm(op) == perm
    if op.opcode != "RESHAPE":
        return False
    x, y = op.inputs[0].shape, op.outputs[0].shape
    static = all(d is not None for d in (*x, *y))
    return static and len(x) == len(y) == 4 and tuple(x[p] for p in perm) == y


def _already_nhwc(g: GraphEditor) -> set[int]:
    """The ids of the operators inside closed pre/post regions (step 1)."""
    marked: set[int] = set()
    for op in g.ops("TRANSPOSE", "RESHAPE"):
        if _moves(op, NCHW_TO_NHWC):
            marked |= _closed_region(g, op)
    return marked


def _closed_region(g: GraphEditor, pre: Operator) -> set[int]:
    region: set[int] = set()
    stack = [pre]
    while stack:
        for t in stack.pop().outputs:
            if g.is_output(t):
                return set()
            for user in g.consumers(t):
                if id(user) in region or _moves(user, NHWC_TO_NCHW):
                    continue
                if _moves(user, NCHW_TO_NHWC):
                    return set()
                region.add(id(user))
                stack.append(user)
    return region


def _convert_input(g: GraphEditor, t: Tensor) -> int:
    if len(t.shape) != 4:
        return 0
    n, c, h, w = t.shape
    t.shape = (n, h, w, c)
    back = add_transpose(g, t, NHWC_TO_NCHW, origin=NO_ORIGIN, like=t, name=t.name)
    g.replace(t, back, keep=[g.producer(back)])
    return 1


def _convert_output(g: GraphEditor, t: Tensor) -> int:
    if len(t.shape) != 4 or not g.is_output(t):
        return 0
    source = g.producer(t)
    nhwc = add_transpose(g, t, NCHW_TO_NHWC, origin=origin_of(source), like=t, name=t.name)
    g.replace(t, nhwc, keep=g.consumers(t))
    if source is not None:
        nhwc.name, t.name = t.name, nhwc.name
    return 1
