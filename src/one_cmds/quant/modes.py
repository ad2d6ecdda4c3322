"""The modes besides the default pipeline (quantization.md §15): ``force_quantparam``,
``copy_quantparam`` and ``requantize`` (int8 -> uint8)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..ir import Model, QuantParam, Tensor
from .errors import QuantizeError


def _tensors_by_name(model: Model) -> dict[str, Tensor]:
    return {t.name: t for t in model.main.referenced_tensors()}


def _named(tensors: dict[str, Tensor], name: str) -> Tensor:
    if name not in tensors:
        raise QuantizeError(f"tensor '{name}' is not in the model")
    return tensors[name]


def force_quantparam(
    model: Model, names: Sequence[str], scales: Sequence[float], zero_points: Sequence[int]
) -> None:
    """Each named tensor's qparam becomes ``{scale=[s], zero_point=[zp]}``; dtypes stay."""
    tensors = _tensors_by_name(model)
    for name, scale, zero_point in zip(names, scales, zero_points, strict=True):
        _named(tensors, name).quant = QuantParam(
            scale=np.array([scale], np.float32), zero_point=np.array([zero_point], np.int64)
        )


def copy_quantparam(model: Model, sources: Sequence[str], targets: Sequence[str]) -> None:
    """Copy scale, zero point, min, max and quantized dimension from each source to its
    destination."""
    tensors = _tensors_by_name(model)
    for source, target in zip(sources, targets, strict=True):
        q = _named(tensors, source).quant
        if q is None:
            raise QuantizeError(f"tensor '{source}' has no quantization parameters")
        _named(tensors, target).quant = QuantParam(
            q.scale, q.zero_point, q.min, q.max, q.quantized_dimension
        )


def requantize_int8_to_uint8(model: Model) -> None:
    """Every INT8 tensor with a qparam becomes UINT8 with ``zp + 128``; constant data moves
    by 128 (**adopted**: any value in [0, 255] accepted)."""
    for graph in model.graphs:
        for t in graph.referenced_tensors():
            q = t.quant
            if t.dtype != "INT8" or q is None or q.scale is None:
                continue
            zero_point = np.asarray(q.zero_point, np.int64) + 128
            t.quant = QuantParam(q.scale, zero_point, q.min, q.max, q.quantized_dimension)
            if t.is_constant:
                shifted = t.data.astype(np.int16) + 128
                t.dtype = "UINT8"
                t.data = shifted.astype(np.uint8)
            else:
                t.dtype = "UINT8"
