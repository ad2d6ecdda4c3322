"""The layout pass (onnx-import.md §5.3–§5.5): TRANSPOSEs brought by layout-sensitive
operators are folded, composed, cancelled and sunk (:mod:`.layout_sink`), reshape/transpose
chains rewritten and swaps absorbed into BATCH_MATMUL (:mod:`.layout_chains`) in sweeps until
no rule fires; then the graph I/O optionally take channels-last shapes. Returns the ``-V``
summary line."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from ...ir import Graph, Model, Operator, Tensor
from ...shape import ShapeInferenceError, infer_shapes
from .layout_chains import Chains
from .layout_edit import LayoutEditor, permuted
from .layout_pushable import PLANNERS
from .layout_sink import Sink
from .ops.common import CHANNELS_FIRST, CHANNELS_LAST

# channels-last operators the lowering brings TRANSPOSEs for (not barriers: §5.1)
SPATIAL = frozenset(
    {
        "TRANSPOSE", "CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "CONV_3D",
        "MAX_POOL_2D", "AVERAGE_POOL_2D", "L2_POOL_2D", "RESIZE_BILINEAR",
        "RESIZE_NEAREST_NEIGHBOR", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "INSTANCE_NORM",
    }
)  # fmt: skip
# one-input operators that compute element by element, whatever the layout
ELEMENTWISE = frozenset(
    {
        "LOGISTIC", "TANH", "RELU", "RELU6", "RELU_N1_TO_1", "LEAKY_RELU", "HARD_SWISH", "ELU",
        "GELU", "ABS", "NEG", "EXP", "LOG", "SQRT", "RSQRT",
    }
)  # fmt: skip

if TYPE_CHECKING:
    from .options import OnnxOptions


def arrange_layout(model: Model, options: OnnxOptions) -> str:
    """Run the pass on ``model.main`` as ``options`` say."""
    graph = model.main
    lowered = _transposes(graph)
    try:
        infer_shapes(model)
    except ShapeInferenceError:
        return _summary(graph, lowered)  # the importer's own inference reports it
    e = LayoutEditor(model)
    if not options.disable_transpose_propagation:
        _propagate(e)
        e.begin()
    if options.nchw_to_nhwc_input_shape:
        _channels_last_inputs(e)
    if options.nchw_to_nhwc_output_shape:
        _channels_last_outputs(e)
    e.g.commit()
    return _summary(graph, lowered)


def _propagate(e: LayoutEditor) -> None:
    """Sweeps in topological order until none changes the graph; a TRANSPOSE a rule creates
    is visited in the same sweep."""
    sink, chains = Sink(e), Chains(e)
    changed = True
    while changed:
        changed = False
        e.begin()
        work = deque(e.g.ops("TRANSPOSE", "RESHAPE"))
        while work:
            t = work.popleft()
            if e.alive(t) and sink.visit(t):
                changed = True
                work.extend(e.take_created())
        changed = chains.run() or changed
        e.g.commit()


def _channels_last_inputs(e: LayoutEditor) -> None:
    """An input read only by ``TRANSPOSE(x, cl)`` takes the permuted shape and loses them."""
    g = e.g
    for x in g.graph.inputs:
        cl = CHANNELS_LAST.get(len(x.shape))
        readers = g.consumers(x)
        if cl is None or not readers or g.is_output(x):
            continue
        if all(e.perm(u) == cl and e.can_redirect(u.outputs[0], x) for u in readers):
            x.shape = permuted(x.shape, cl)
            for u in readers:
                g.replace(u.outputs[0], x)


def _channels_last_outputs(e: LayoutEditor) -> None:
    """An output written by ``TRANSPOSE(y, cf)`` becomes ``y`` (with the output's name); so
    does one written by a RESHAPE that is that transpose because the moved dims are 1 (a
    single-channel map: [1, H, W, 1] -> [1, 1, H, W]). Between that operator and the output
    may stand elementwise operators of one input (a detector's final LOGISTIC), which then
    run on ``y``."""
    g = e.g
    for out in list(g.graph.outputs):
        cf = CHANNELS_FIRST.get(len(out.shape))
        chain = _elementwise_chain(e, out)
        moved = chain[-1].inputs[0] if chain else out
        src = g.producer(moved)
        if cf is None or not (e.perm(src) == cf or _is_transpose(src, moved.shape, cf)):
            continue
        y = src.inputs[0]
        if chain:
            for op in chain:
                op.outputs[0].shape = y.shape
            g.set_input(chain[-1], 0, y)
        elif not (g.is_input(y) or y.is_constant or g.is_output(y)):
            g.replace(out, y, keep=g.consumers(out))


def _elementwise_chain(e: LayoutEditor, out: Tensor) -> list[Operator]:
    """The one-input elementwise operators from ``out`` back, each input read by that
    operator only: the operators a layout change before them can move past."""
    g, chain = e.g, []
    op = g.producer(out)
    while op is not None and op.opcode in ELEMENTWISE:
        chain.append(op)
        x = op.inputs[0]
        if g.is_output(x) or g.is_input(x) or g.single_consumer(x) is not op:
            return []
        op = g.producer(x)
        if op is None or op.opcode not in ELEMENTWISE:
            break
    return chain


def _is_transpose(op: Operator | None, shape: tuple, perm: tuple[int, ...]) -> bool:
    """``op`` is a RESHAPE to ``shape`` that moves its input as ``TRANSPOSE(perm)`` would:
    the input permuted is ``shape``, and the dims other than 1 keep their order."""
    if op is None or op.opcode != "RESHAPE":
        return False
    source = op.inputs[0].shape
    if len(source) != len(perm) or permuted(source, perm) != tuple(shape):
        return False
    moved = [axis for axis in perm if source[axis] != 1]
    return moved == sorted(moved)


def _transposes(graph: Graph) -> int:
    return sum(op.opcode == "TRANSPOSE" for op in graph.operators)


def _summary(graph: Graph, lowered: int) -> str:
    """``transposes: <a> lowered, <b> removed, <c> left (<i> at inputs, <o> at outputs, <r> at
    barriers)``: a TRANSPOSE reading a graph input counts at inputs, one writing a graph output
    at outputs, any other at barriers."""
    inputs = {id(t) for t in graph.inputs}
    outputs = {id(t) for t in graph.outputs}
    left = [op for op in graph.operators if op.opcode == "TRANSPOSE"]
    at_inputs = sum(id(op.inputs[0]) in inputs for op in left)
    at_outputs = sum(id(op.inputs[0]) not in inputs and id(op.outputs[0]) in outputs for op in left)
    barriers = len(left) - at_inputs - at_outputs
    return (
        f"transposes: {lowered} lowered, {lowered - len(left)} removed, {len(left)} left "
        f"({at_inputs} at inputs, {at_outputs} at outputs, {barriers} at barriers)"
    )


def kept_transposes(graph: Graph, node_types: dict[int, str]) -> list[str]:
    """A ``-V`` line for every TRANSPOSE left inside the graph, with the §5.5 reason that
    keeps it: (b) next to a layout barrier, (c) an ONNX Transpose (``node_types``: op type by
    node index, the origins), or (d) the cost rule (next to a channels-last operator, the
    TRANSPOSE it was lowered with, or a value read in both layouts)."""
    inputs = {id(t) for t in graph.inputs}
    outputs = {id(t) for t in graph.outputs}
    producers = {id(o): op for op in graph.operators for o in op.outputs}
    lines = []
    for op in graph.operators:
        if op.opcode != "TRANSPOSE" or id(op.inputs[0]) in inputs or id(op.outputs[0]) in outputs:
            continue
        source = producers.get(id(op.inputs[0]))
        readers = [c for c in graph.operators if any(t is op.outputs[0] for t in c.inputs)]
        around = [c.opcode for c in (source, *readers) if c is not None]
        barriers = [name for name in around if name not in PLANNERS and name not in SPATIAL]
        if barriers:
            reason = f"(b) next to the layout barrier {barriers[0]}"
        elif any(node_types.get(k) == "Transpose" for k in op.origin):
            reason = "(c) an ONNX Transpose whose data movement stays"
        else:
            reason = "(d) the cost rule: moving it would add as many TRANSPOSEs as it removes"
        shown = ", ".join(c.opcode for c in readers) or "nothing"
        origin = source.opcode if source is not None else "a constant"
        lines.append(f"  TRANSPOSE {op.outputs[0].name}: {origin} -> {shown}; {reason}")
    return lines
