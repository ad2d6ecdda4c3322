"""Quantized single-operator models for kernel tests, judged by LiteRT's reference kernels.

``quantized_model(opcode, operands, quants, dtype, out_quant)`` builds the model (operands as
in :func:`support.single_op.op_model`, one QuantParam or None per input); ``assert_exact``
runs it in LiteRT (``REFERENCE`` resolver) and in the interpreter and requires equal results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from one_cmds.interp import Interpreter
from one_cmds.ir import Model, QuantParam
from support.litert import REFERENCE, run_model
from support.single_op import op_model

NUMPY = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16}


def qparam(scale: Any, zero_point: Any = 0, dim: int = 0) -> QuantParam:
    """``scale`` a number or one per channel; ``zero_point`` one for all or one per scale."""
    scale = np.asarray(scale, np.float32).reshape(-1)
    zero_point = np.broadcast_to(np.asarray(zero_point, np.int64).reshape(-1), scale.shape)
    return QuantParam(scale=scale, zero_point=zero_point.copy(), quantized_dimension=dim)


def qrand(rng: np.random.Generator, dtype: str, *shape: int, low: int | None = None):
    """Uniform integers of a quantized type (from ``low``, default the type's minimum)."""
    info = np.iinfo(NUMPY[dtype])
    low = info.min if low is None else low
    return rng.integers(low, info.max + 1, shape).astype(NUMPY[dtype])


def zero_point(rng: np.random.Generator, dtype: str) -> int:
    """A zero point typical of the type (0 for INT16)."""
    choices = {"INT8": (-30, 30), "UINT8": (100, 156)}
    return int(rng.integers(*choices[dtype])) if dtype in choices else 0


def quantized_model(
    opcode: str,
    operands: Sequence[Any],
    quants: Sequence[QuantParam | None],
    dtype: str,
    out_quant: QuantParam,
    options: Any = None,
    **more: Any,
) -> Model:
    """A single-operator model whose inputs carry ``quants`` and whose ``dtype`` result
    carries ``out_quant`` (``more`` as for :func:`support.single_op.op_model`)."""
    model = op_model(opcode, operands, options, outputs=[dtype], **more)
    op = model.main.operators[0]
    for tensor, quant in zip(op.inputs, quants, strict=True):
        if tensor is not None:
            tensor.quant = quant
    op.outputs[0].quant = out_quant
    return model


def assert_exact(model: Model, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """The interpreter equals LiteRT's reference kernels bit for bit; LiteRT's result."""
    (expected,) = run_model(model, inputs, REFERENCE)
    (got,) = Interpreter(model).run(list(inputs))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    return expected


def feeds(operands: Sequence[Any]) -> list[np.ndarray]:
    """The non-constant operands, in order (the model's graph inputs)."""
    return [o for o in operands if isinstance(o, np.ndarray)]
