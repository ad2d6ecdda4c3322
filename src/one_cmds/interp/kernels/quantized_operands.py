"""The operands of quantized kernels as LiteRT's reference kernels read and check them:
per-tensor parameters with float32 scales, the integer types a kernel takes, and int16's
zero points of 0."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator, numpy_dtype
from ..context import InterpreterError
from ..qparams import per_tensor
from ..registry import Args

F32 = np.float32


def tensor_params(op: Operator, index: int, output: bool = False) -> tuple[np.float32, int]:
    """(scale as float32, zero point) of a per-tensor operand or result."""
    tensor = op.outputs[index] if output else op.inputs[index]
    if tensor is None or tensor.quant is None:
        raise InterpreterError(f"{op.kind}: tensor {index} has no quantization parameters")
    scale, zero_point = per_tensor(tensor)
    return F32(scale), zero_point


def out_dtype(op: Operator) -> np.dtype:
    return np.dtype(numpy_dtype(op.outputs[0].dtype))


def check_types(op: Operator, x: np.ndarray, allowed: tuple[Any, ...]) -> None:
    """``x`` is of an ``allowed`` type and the result of the same one."""
    if x.dtype not in [np.dtype(a) for a in allowed] or out_dtype(op) != x.dtype:
        names = ", ".join(np.dtype(a).name for a in allowed)
        raise InterpreterError(
            f"{op.kind}: quantized {x.dtype} -> {out_dtype(op)} is not supported "
            f"(LiteRT supports {names} with the same output type)"
        )


def symmetric_int16(op: Operator, zero_points: tuple[int, ...]) -> None:
    if any(z != 0 for z in zero_points):
        raise InterpreterError(f"{op.kind}: int16 tensors need zero point 0 (as in LiteRT)")


def unary_operand(
    op: Operator, args: Args, allowed: tuple[Any, ...]
) -> tuple[np.ndarray, np.float32, int, np.float32, int]:
    """The input of a one-operand kernel, checked by :func:`check_types`, with (input scale,
    zero point, output scale, zero point); int16 needs zero points of 0."""
    x = args[0]
    check_types(op, x, allowed)
    in_scale, in_zp = tensor_params(op, 0)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    if x.dtype == np.int16:
        symmetric_int16(op, (in_zp, out_zp))
    return x, in_scale, in_zp, out_scale, out_zp
