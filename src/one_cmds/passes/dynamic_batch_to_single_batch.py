"""``dynamic_batch_to_single_batch``: an unknown batch dimension of the inputs becomes 1.

resize.md §8: only rank-4 inputs may have an unknown first dimension; after shape inference
every tensor must be static, else the step fails (a warning with ``disable_validation``).
"""

from __future__ import annotations

from ..errors import StageError
from ..ir import Model
from ..report.console import warn
from ..shape import infer_shapes
from . import PassOptions, model_pass


@model_pass("dynamic_batch_to_single_batch")
def dynamic_batch_to_single_batch(model: Model, options: PassOptions) -> int:
    changed = 0
    for graph in model.graphs:
        for tensor in graph.inputs:
            if not tensor.shape or tensor.shape[0] is not None:
                continue
            if len(tensor.shape) != 4:
                raise StageError("First dimension of input is unknown, but its rank is not 4.")
            tensor.shape = (1, *tensor.shape[1:])
            changed += 1
    infer_shapes(model)
    dynamic = [t.name for g in model.graphs for t in g.referenced_tensors() if not t.is_static]
    if dynamic:
        message = "Invalid shape detected after converting dynamic batch to single batch"
        if not options.disable_validation:
            raise StageError(f"{message} (tensor {dynamic[0]!r} is still dynamic)")
        if not options.mute_warnings:
            warn(message)
    return changed
