"""Control flow (WHILE, IF, CALL_ONCE) and resource variables (VAR_HANDLE, READ_VARIABLE,
ASSIGN_VARIABLE).

Subgraphs run through ``ctx.run_graph``. State that outlives one operator (which CALL_ONCE
initialisers have run, the variables' values) lives on the RunContext, so it persists across
``Interpreter.run`` calls as it does across LiteRT invocations.
"""

from __future__ import annotations

import numpy as np

from ..registry import kernel


class _Resources:
    """Per-RunContext state: resource ids by (container, shared name), their values, and the
    init subgraphs CALL_ONCE has already run."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, str], int] = {}
        self.values: dict[int, np.ndarray] = {}
        self.initialised: set[int] = set()


def _resources(ctx) -> _Resources:
    state = getattr(ctx, "resources", None)
    if state is None:
        state = _Resources()
        ctx.resources = state
    return state


def _truth(value: np.ndarray, what: str) -> bool:
    arr = np.asarray(value)
    if arr.size != 1:
        raise ValueError(f"{what} must hold one value, got shape {list(arr.shape)}")
    return bool(arr.reshape(()))


@kernel("WHILE")
def while_(op, args, ctx):
    """Run the body subgraph on the loop values while the cond subgraph returns true."""
    cond, body = op.options.condSubgraphIndex, op.options.bodySubgraphIndex
    values = list(args)
    while _truth(ctx.run_graph(cond, values)[0], "the WHILE condition"):
        values = ctx.run_graph(body, values)
    return values


@kernel("IF")
def if_(op, args, ctx):
    """Run the then or the else subgraph on the inputs after the condition."""
    branch = (
        op.options.thenSubgraphIndex
        if _truth(args[0], "the IF condition")
        else op.options.elseSubgraphIndex
    )
    return ctx.run_graph(branch, args[1:])


@kernel("CALL_ONCE")
def call_once(op, args, ctx):
    """Run the init subgraph the first time only (per interpreter)."""
    index = op.options.initSubgraphIndex
    state = _resources(ctx)
    if index not in state.initialised:
        state.initialised.add(index)
        ctx.run_graph(index, [])
    return []


@kernel("VAR_HANDLE")
def var_handle(op, args, ctx):
    """The int32 id of the variable named by (container, shared name), as LiteRT assigns it."""
    options = op.options
    key = (_text(getattr(options, "container", None)), _text(getattr(options, "sharedName", None)))
    ids = _resources(ctx).ids
    return np.array(ids.setdefault(key, len(ids)), dtype=np.int32)


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)


@kernel("ASSIGN_VARIABLE")
def assign_variable(op, args, ctx):
    _resources(ctx).values[int(args[0])] = np.array(args[1], copy=True)
    return []


@kernel("READ_VARIABLE")
def read_variable(op, args, ctx):
    value = _resources(ctx).values.get(int(args[0]))
    if value is None:
        raise ValueError(f"variable {int(args[0])} is read before it is assigned")
    return value.copy()
