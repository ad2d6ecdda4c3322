"""The resize step: give the inputs of subgraph 0 new shapes and re-infer every other shape.

resize.md §3: the rank may change, ``-1``/None is an unknown dimension, ``()`` a scalar;
dtypes, quantization, origins and metadata are untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..config.shapes import INT32_MAX, ShapeStringError, format_shape, parse_shapes
from ..errors import StageError
from ..ir import Model, Shape
from ..report.console import out
from ..shape import ShapeInferenceError, infer_shapes

ShapesArg = str | Sequence[Sequence[int | None]]


class ResizeError(StageError):
    """The new shapes cannot be applied."""


def resize(model: Model, shapes: ShapesArg) -> Model:
    """Return a resized copy of ``model`` (the Python API; prints nothing).

    ``shapes`` is the CLI string form (``"[1,3,4],[2]"``) or one sequence of ints per input,
    where ``-1`` or None marks an unknown dimension and ``()`` a scalar.
    """
    resized = model.copy()
    resize_inputs(resized, shapes)
    return resized


def resize_inputs(model: Model, shapes: ShapesArg) -> None:
    """Resize ``model`` in place: set the input shapes, then infer shapes to a fixpoint."""
    new_shapes = parse_shapes(shapes) if isinstance(shapes, str) else _normalize(shapes)
    inputs = model.main.inputs
    if len(new_shapes) != len(inputs):
        raise ResizeError(f"Expected {len(inputs)} shapes but provided {len(new_shapes)}")
    for tensor, shape in zip(inputs, new_shapes, strict=True):
        tensor.shape = shape
    try:
        infer_shapes(model)
    except ShapeInferenceError as e:
        raise ResizeError(f"Exception during resizing with message: {e.message}") from None


def _normalize(shapes: Sequence[Sequence[int | None]]) -> list[Shape]:
    result: list[Shape] = []
    for i, shape in enumerate(shapes):
        dims: list[int | None] = []
        for d in shape:
            if d is not None and not (isinstance(d, int) and -1 <= d <= INT32_MAX):
                raise ShapeStringError(
                    f"Error during shape processing: shape {i} has dimension {d!r} "
                    "(expected a size >= 0, or -1/None for an unknown dimension)"
                )
            dims.append(None if d in (None, -1) else d)
        result.append(tuple(dims))
    return result


def run_resize_step(model: Model, options: Any) -> Model:
    """The ``[one-resize]`` step: resize in place and print the before/after listing."""
    shapes = parse_shapes(options.input_shapes)
    _print_listing(model, "before")
    resize_inputs(model, shapes)
    _print_listing(model, "after")
    return model


def resize_done_message(options: Any) -> str:
    return f"Resizing complete, the model saved to: {options.output_path}"


def _print_listing(model: Model, when: str) -> None:
    for kind, tensors in (("inputs", model.main.inputs), ("outputs", model.main.outputs)):
        out(f"Shapes of {kind} {when} resizing:")
        for i, t in enumerate(tensors):
            out(f"{i} -> {format_shape(t.shape)}")
