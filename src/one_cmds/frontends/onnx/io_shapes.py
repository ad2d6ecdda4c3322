"""Shape options of the import (onnx-import.md §8.2) and the check of declared output shapes.

``--input_shapes`` / ``--output_shapes``: ``[d,…]`` per graph input (output) in order, or
``name[d,…]`` for some of them (all named or all positional), ``-1`` unknown.
``--dynamic_batch_to_single_batch``: an unknown dim 0 of an input becomes 1.
"""

from __future__ import annotations

from collections.abc import Callable

import onnx

from ...ir.shape_list import NamedShapeList
from .errors import OnnxImportError
from .folding import Facts, Shape, dim_of
from .loader import OnnxSource
from .options import OnnxOptions


def shapes_by_name(entries: NamedShapeList, infos: list[onnx.ValueInfoProto]) -> dict[str, Shape]:
    """The shapes of the option's entries by value name (positional ones follow ``infos``)."""
    known = {info.name for info in infos}
    shapes: dict[str, Shape] = {}
    for k, (name, shape) in enumerate(entries):
        if name is None:
            if k < len(infos):
                shapes[infos[k].name] = shape
            continue
        if name not in known:
            raise OnnxImportError(
                f"Tensor with name={name} do NOT match any input/output of the model"
            )
        shapes[name] = shape
    return shapes


def _dims(info: onnx.ValueInfoProto) -> list[onnx.TensorShapeProto.Dimension]:
    return list(info.type.tensor_type.shape.dim)


def _set_dims(info: onnx.ValueInfoProto, shape: Shape) -> None:
    """Give the input ``shape``; its rank must be the declared one (an input without a
    declared shape has no rank to match: the reference refuses it too)."""
    declared = info.type.tensor_type.HasField("shape")
    if not declared or len(_dims(info)) != len(shape):
        raise OnnxImportError(
            "Rank of provided shape must be compatible with the origin tensor="
            f"{info.name} from the model"
        )
    tensor_shape = info.type.tensor_type.shape
    del tensor_shape.dim[:]
    for d in shape:
        dim = tensor_shape.dim.add()
        if d is not None:
            dim.dim_value = d


def apply_input_shapes(source: OnnxSource, options: OnnxOptions) -> None:
    """Give graph inputs the shapes of the options before shapes are inferred."""
    graph = source.model.graph
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    if options.input_shapes:
        given = shapes_by_name(options.input_shapes, inputs)
        for info in inputs:
            shape = given.get(info.name)
            if shape is not None:
                _set_dims(info, shape)
    if options.dynamic_batch_to_single_batch:
        for info in inputs:
            dims = _dims(info)
            if dims and not dims[0].HasField("dim_value"):
                dims[0].dim_value = 1


def check_output_shapes(
    source: OnnxSource, facts: Facts, options: OnnxOptions, warn: Callable[[str], None]
) -> None:
    """Declared output dims against inference: a contradiction warns, the computed shape is
    used; ``--output_shapes`` fills what inference cannot know."""
    outputs = list(source.model.graph.output)
    given = shapes_by_name(options.output_shapes, outputs) if options.output_shapes else {}
    for info in outputs:
        computed = facts.shapes.get(info.name)
        declared = tuple(dim_of(d) for d in _dims(info))
        if info.name in given:
            shape = given[info.name]
            if computed is not None and len(computed) != len(shape):
                raise OnnxImportError(
                    "Rank of provided shape must be compatible with the origin tensor="
                    f"{info.name} from the model"
                )
            facts.shapes[info.name] = tuple(
                c if c is not None else s for c, s in zip(computed or shape, shape, strict=True)
            )
            continue
        if computed is None:
            if declared:
                facts.shapes[info.name] = declared
            continue
        if not declared:
            continue
        if len(declared) != len(computed) or any(
            d is not None and c is not None and d != c
            for d, c in zip(declared, computed, strict=False)
        ):
            warn(
                f"graph output '{info.name}' declared {_text(declared)}, computed "
                f"{_text(computed)}; the computed shape is used"
            )


def _text(shape: Shape) -> str:
    named = [str(d) if d is not None else "?" for d in shape]
    return f"[{','.join(named)}]"
