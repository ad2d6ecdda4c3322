"""Control flow: subgraphs inferred with the shapes of their call-site operands."""

from __future__ import annotations

from ..common import join, option
from ..registry import ShapeError, rule


def _join_all(a, b, what):
    if len(a) != len(b):
        raise ShapeError(f"{what}: {len(b)} values for {len(a)}")
    return [join(x, y, f"{what} {i}") for i, (x, y) in enumerate(zip(a, b, strict=True))]


@rule("WHILE")
def while_(op, ctx):
    """Loop variables keep their shapes; a dimension the body changes becomes unknown, and
    the body and condition are inferred again until the loop shapes are stable."""
    cond, body = option(op, "condSubgraphIndex", 0), option(op, "bodySubgraphIndex", 0)
    carried = [ctx.shape(i) for i in range(ctx.num_inputs)]
    while True:
        ctx.call_graph(cond, carried)
        results = [s for s, _ in ctx.call_graph(body, carried)]
        relaxed = _join_all(carried, results, "WHILE loop variable")
        if relaxed == carried:
            return [(s, ctx.dtype(i)) for i, s in enumerate(carried)]
        carried = relaxed


@rule("IF")
def if_(op, ctx):
    """Input 0 is the condition; each output joins the then- and else-branch outputs."""
    operands = [ctx.shape(i) for i in range(1, ctx.num_inputs)]
    then = ctx.call_graph(option(op, "thenSubgraphIndex", 0), operands)
    other = ctx.call_graph(option(op, "elseSubgraphIndex", 0), operands)
    shapes = _join_all([s for s, _ in then], [s for s, _ in other], "IF output")
    return [(s, dtype) for s, (_, dtype) in zip(shapes, then, strict=True)]


@rule("CALL_ONCE")
def call_once(op, ctx):
    """No operands and no results; the init subgraph is inferred on its own inputs."""
    ctx.call_graph(option(op, "initSubgraphIndex", 0), [])
    return []
