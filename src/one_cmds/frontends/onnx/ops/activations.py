"""Activations (onnx-import.md §6.1): the rectifiers and their relatives, Clip, the sigmoids,
GELU and Erf, Softmax and LogSoftmax. What TFLite lacks is decomposed into element-wise
operators; the GELU and HardSwish chains of several nodes are matched in :mod:`.fusions`."""

from __future__ import annotations

import math

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from . import fusions
from .common import axis_last, clip_bound, reshape, transpose
from .elementwise import narrowed, op, scalar, scaled, shifted, widened

SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875
# Abramowitz and Stegun 7.1.26: erf(x) ≈ 1 − t·(a1 + t·(a2 + …))·exp(−x²), t = 1/(1 + p·|x|).
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
SIMPLE = {"Sigmoid": "LOGISTIC", "Tanh": "TANH", "HardSwish": "HARD_SWISH"}


def _bind(node: Node, lo: Lowering, y: Tensor) -> None:
    lo.bind(node.outputs[0], y)


def relu(lo: Lowering, x: Tensor) -> Tensor:
    """``max(x, 0)``: RELU for floats (TFLite's RELU has no INT32 kernel)."""
    if x.dtype == "FLOAT32":
        return op(lo, "RELU", [x])
    return op(lo, "MAXIMUM", [x, scalar(lo, 0, x)])


@converter("Relu")
def relu_node(node: Node, lo: Lowering) -> None:
    _bind(node, lo, relu(lo, lo.value(node.input(0))))


@converter(*SIMPLE)
def simple(node: Node, lo: Lowering) -> None:
    if fusions.claim(node, lo):
        return
    _bind(node, lo, op(lo, SIMPLE[node.op_type], [lo.value(node.input(0))]))


@converter("LeakyRelu")
def leaky_relu(node: Node, lo: Lowering) -> None:
    alpha = float(node.attr("alpha", 0.01))
    _bind(node, lo, op(lo, "LEAKY_RELU", [lo.value(node.input(0))], alpha=alpha))


@converter("PRelu")
def prelu(node: Node, lo: Lowering) -> None:
    """PRELU for floats; integers (no TFLite kernel) as ``max(x, 0) + slope·min(x, 0)``."""
    x, slope = lo.value(node.input(0)), lo.value(node.input(1))
    if x.dtype == "FLOAT32":
        _bind(node, lo, op(lo, "PRELU", [x, slope]))
        return
    (x, slope), narrow = widened(lo, [x, slope])
    negative = op(lo, "MUL", [slope, op(lo, "MINIMUM", [x, scalar(lo, 0, x)])])
    _bind(node, lo, narrowed(lo, op(lo, "ADD", [relu(lo, x), negative]), narrow))


def elu(lo: Lowering, x: Tensor, alpha: float, gamma: float = 1.0) -> Tensor:
    """``γ·(x > 0 ? x : α·(eˣ−1))``: ELU, or ``γ·relu(x) + γα·min(ELU(x), 0)``."""
    if alpha == 1 and gamma == 1:
        return op(lo, "ELU", [x])
    positive = relu(lo, x)
    if gamma != 1:
        positive = scaled(lo, positive, gamma)
    negative = op(lo, "MINIMUM", [op(lo, "ELU", [x]), scalar(lo, 0, x)])
    return op(lo, "ADD", [positive, scaled(lo, negative, alpha * gamma)])


@converter("Elu")
def elu_node(node: Node, lo: Lowering) -> None:
    _bind(node, lo, elu(lo, lo.value(node.input(0)), float(node.attr("alpha", 1.0))))


@converter("Selu")
def selu(node: Node, lo: Lowering) -> None:
    alpha = float(node.attr("alpha", SELU_ALPHA))
    gamma = float(node.attr("gamma", SELU_GAMMA))
    _bind(node, lo, elu(lo, lo.value(node.input(0)), alpha, gamma))


def softplus(lo: Lowering, x: Tensor) -> Tensor:
    """``max(x, 0) + log(1 + exp(−|x|))`` (no overflow for large |x|)."""
    tail = op(lo, "EXP", [op(lo, "NEG", [op(lo, "ABS", [x])])])
    return op(lo, "ADD", [relu(lo, x), op(lo, "LOG", [shifted(lo, tail, 1)])])


@converter("Softplus")
def softplus_node(node: Node, lo: Lowering) -> None:
    _bind(node, lo, softplus(lo, lo.value(node.input(0))))


@converter("Mish")
def mish(node: Node, lo: Lowering) -> None:
    """``x·tanh(softplus(x))``."""
    x = lo.value(node.input(0))
    _bind(node, lo, op(lo, "MUL", [x, op(lo, "TANH", [softplus(lo, x)])]))


def _bound(lo: Lowering, node: Node, k: int, attr: str, dtype: str) -> float | Tensor | None:
    """Clip's lower (k 1) or upper (k 2) bound: a number, a tensor, or None when there is none
    or it lies outside ``dtype``'s range (the limits of opset < 11 attributes)."""
    value = clip_bound(lo, node, k, attr)
    if value is None or isinstance(value, str):
        return None if value is None else lo.value(value)
    info = np.finfo(np.float32) if dtype == "FLOAT32" else np.iinfo(np.int32)
    return value if info.min < value < info.max else None


@converter("Clip")
def clip(node: Node, lo: Lowering) -> None:
    """Constant float bounds (0, ∞), (0, 6), (−1, 1): RELU, RELU6, RELU_N1_TO_1; others
    MAXIMUM then MINIMUM (also with tensor bounds)."""
    if fusions.claim(node, lo):
        return
    x = lo.value(node.input(0))
    low, high = (_bound(lo, node, k, attr, x.dtype) for k, attr in ((1, "min"), (2, "max")))
    fast = {(0.0, None): "RELU", (0.0, 6.0): "RELU6", (-1.0, 1.0): "RELU_N1_TO_1"}
    key = (low, high) if not isinstance(low, Tensor) and not isinstance(high, Tensor) else None
    if x.dtype == "FLOAT32" and key in fast:
        _bind(node, lo, op(lo, fast[key], [x]))
        return
    y = x
    for opcode, bound in (("MAXIMUM", low), ("MINIMUM", high)):
        if bound is not None:
            operand = bound if isinstance(bound, Tensor) else scalar(lo, bound, x)
            y = op(lo, opcode, [y, operand])
    _bind(node, lo, y)


@converter("HardSigmoid")
def hard_sigmoid(node: Node, lo: Lowering) -> None:
    """``max(0, min(1, α·x + β))``."""
    if fusions.claim(node, lo):
        return
    x = lo.value(node.input(0))
    linear = shifted(lo, scaled(lo, x, node.attr("alpha", 0.2)), node.attr("beta", 0.5))
    low = op(lo, "MAXIMUM", [linear, scalar(lo, 0, x)])
    _bind(node, lo, op(lo, "MINIMUM", [low, scalar(lo, 1, x)]))


@converter("Gelu")
def gelu(node: Node, lo: Lowering) -> None:
    approximate = node.attr("approximate", "none")
    if approximate not in ("none", "tanh"):
        raise Unsupported(f"approximate '{approximate}' is not supported")
    x = lo.value(node.input(0))
    _bind(node, lo, op(lo, "GELU", [x], approximate=approximate == "tanh"))


def erf(lo: Lowering, x: Tensor) -> Tensor:
    """Abramowitz and Stegun 7.1.26 (absolute error ≤ 1.5e−7), odd in ``x``."""
    t = op(lo, "DIV", [scalar(lo, 1, x), shifted(lo, scaled(lo, op(lo, "ABS", [x]), ERF_P), 1)])
    poly = scaled(lo, t, ERF_A[-1])
    for a in reversed(ERF_A[:-1]):
        poly = op(lo, "MUL", [shifted(lo, poly, a), t])
    gauss = op(lo, "EXP", [op(lo, "NEG", [op(lo, "SQUARE", [x])])])
    magnitude = op(lo, "SUB", [scalar(lo, 1, x), op(lo, "MUL", [poly, gauss])])
    return op(lo, "MUL", [op(lo, "SIGN", [x]), magnitude])


@converter("Erf")
def erf_node(node: Node, lo: Lowering) -> None:
    if fusions.claim(node, lo):
        return
    _bind(node, lo, erf(lo, lo.value(node.input(0))))


def _flat(lo: Lowering, name: str, axis: int) -> list[int]:
    """The 2-D shape ``[d0·…·d(axis−1), d(axis)·…]`` with −1 for the one unknown side."""
    shape = lo.shape(name)
    outer, inner = shape[:axis], shape[axis:]  # type: ignore[index]
    if None not in inner:
        return [-1, math.prod(inner)]
    if None not in outer:
        return [math.prod(outer), -1]
    raise Unsupported(f"dimension {axis + inner.index(None)} of '{name}' must be known")


def _unflat(lo: Lowering, y: Tensor, name: str, x: Tensor) -> Tensor:
    """``y`` reshaped back to the shape of ``x`` (the ONNX value ``name``)."""
    shape = lo.shape(name)
    if None not in shape:  # type: ignore[operator]
        return reshape(lo, y, list(shape), "unflatten")  # type: ignore[arg-type]
    target = op(lo, "SHAPE", [x], dtype="INT32", outType=2)  # INT32
    return lo.emit("RESHAPE", [y, target], dtype=y.dtype)


@converter("Softmax", "LogSoftmax")
def softmax(node: Node, lo: Lowering) -> None:
    """SOFTMAX (β 1) or LOG_SOFTMAX along the last axis: another axis is moved to the end and
    back by a TRANSPOSE pair; before opset 13 the input is coerced to 2-D at ``axis``."""
    name = node.input(0)
    x = lo.value(name)
    modern = node.since_version >= 13
    axis = int(node.attr("axis", -1 if modern else 1))
    rank = None if axis == -1 else lo.rank(name)  # the last axis needs no rank
    opcode, fields = (
        ("SOFTMAX", {"beta": 1.0}) if node.op_type == "Softmax" else ("LOG_SOFTMAX", {})
    )
    if rank is None or axis % rank == rank - 1:
        y = op(lo, opcode, [x], **fields)
    elif modern:
        to_last, back = axis_last(rank, axis % rank)
        inner = op(lo, opcode, [transpose(lo, x, to_last, "to_last")], **fields)
        y = transpose(lo, inner, back, "from_last")
    else:
        axis %= rank
        flat = op(lo, opcode, [reshape(lo, x, _flat(lo, name, axis), "flatten")], **fields)
        y = _unflat(lo, flat, name, x)
    _bind(node, lo, y)
