"""The ``one-optimize`` step: the enabled passes on the in-memory model, in the fixed phases
of optimization.md §4.1, then validation (§6) and, on request, ``--verify``."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from ...errors import StageError
from ...ir import Model
from ...passes import load_passes
from ...report.console import detail
from ..options import OptimizeOptions
from .order import (
    ALWAYS,
    ARGUMENTS,
    FIRST,
    MAIN_PHASE,
    MODULE_PHASE,
    NCHW_CONVERSION,
    NCHW_OPTIONAL,
    NCHW_RESOLVERS,
    REPORT_ORDER,
)
from .outputs import change_outputs
from .runner import Runner
from .validation import interface, validate
from .verification import verify

__all__ = ["change_outputs", "optimize"]


def optimize(model: Model, options: OptimizeOptions, *, copy: bool = False) -> Model:
    """Run the enabled passes on ``model`` in place (every one must be implemented), or on a
    copy that shares its weights with ``copy=True``."""
    with _collector_paused():
        return _optimize(model.copy() if copy else model, options)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while the passes run: its full collections
    rescan every tensor of a large model again and again (a third of the time on a
    10,000-operator graph, growing faster than the graph); what the passes drop is freed by
    reference counting, as graphs hold no reference cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _optimize(model: Model, options: OptimizeOptions) -> Model:
    passes = load_passes()
    enabled = [name for name in options.enabled_passes if name not in ARGUMENTS]
    missing = [name for name in enabled if name not in passes]
    if missing:
        raise StageError(f"the following passes are not implemented: {' '.join(missing)}")
    runner = Runner(model, options, passes)
    if FIRST in enabled:
        runner.run_once(FIRST)
    if options.change_outputs:
        change_outputs(model, options.change_outputs)
    original = model.copy() if getattr(options, "verify", False) else None
    on = set(enabled) | ALWAYS
    runner.model_phase([name for name in MODULE_PHASE if name in on])
    # taken after the passes that change the interface on purpose (fuse_bcq drops its
    # metadata outputs)
    before = interface(model)
    if NCHW_CONVERSION in on:
        runner.graph_phase(0, [*NCHW_RESOLVERS, *(n for n in NCHW_OPTIONAL if n in on)])
        runner.run_once(NCHW_CONVERSION)
    main = [name for name in MAIN_PHASE if name in on]
    for index in range(len(model.graphs)):
        runner.graph_phase(index, main)
    nhwc_outputs = NCHW_CONVERSION in on and options.passes.get("nchw_to_nhwc_output_shape")
    validate(model, before, options, nhwc_outputs=bool(nhwc_outputs))
    for name in REPORT_ORDER:
        if name in runner.counts:
            count = runner.counts[name]
            detail(f"{name}: {count} rewrite{'s' if count != 1 else ''}")
    if original is not None:
        detail(verify(original, model, [passes[name] for name in enabled]))
    return model
