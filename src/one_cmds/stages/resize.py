"""The resize step: give the inputs of subgraph 0 new shapes and re-infer every other shape.

resize.md §3: the rank may change, None is an unknown dimension, ``()`` a scalar; dtypes,
quantization, origins and metadata are untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import StageError
from ..ir import Model, Shape
from ..report.console import out
from ..shape import ShapeInferenceError, infer_shapes
from .options import ResizeOptions
from .stage import Stage


class ResizeError(StageError):
    """The new shapes cannot be applied."""


def resize(model: Model, shapes: Sequence[Shape]) -> Model:
    """Return a resized copy of ``model`` (prints nothing)."""
    resized = model.copy()
    resize_inputs(resized, shapes)
    return resized


def resize_inputs(model: Model, shapes: Sequence[Shape]) -> None:
    """Resize ``model`` in place: set the input shapes, then infer shapes to a fixpoint."""
    inputs = model.main.inputs
    if len(shapes) != len(inputs):
        raise ResizeError(f"Expected {len(inputs)} shapes but provided {len(shapes)}")
    for tensor, shape in zip(inputs, shapes, strict=True):
        tensor.shape = shape
    try:
        infer_shapes(model)
    except ShapeInferenceError as e:
        raise ResizeError(f"Exception during resizing with message: {e.message}") from None


def format_shape(shape: Shape) -> str:
    """``[1, -1, 3]`` style, as the resize listing prints shapes."""
    return "[" + ", ".join("-1" if d is None else str(d) for d in shape) + "]"


class ResizeStage(Stage[ResizeOptions]):
    """``[one-resize]``: resize in place and print the before/after listing."""

    def run(self, model: Model | None, options: ResizeOptions) -> Model:
        assert model is not None
        _print_listing(model, "before")
        resize_inputs(model, options.input_shapes)
        _print_listing(model, "after")
        return model

    def done(self, options: ResizeOptions) -> str:
        return f"Resizing complete, the model saved to: {options.output_path}"


RESIZE = ResizeStage()


def _print_listing(model: Model, when: str) -> None:
    for kind, tensors in (("inputs", model.main.inputs), ("outputs", model.main.outputs)):
        out(f"Shapes of {kind} {when} resizing:")
        for i, t in enumerate(tensors):
            out(f"{i} -> {format_shape(t.shape)}")
