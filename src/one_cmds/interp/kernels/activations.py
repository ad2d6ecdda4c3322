"""Activation functions (softmax over the last axis, the ReLU family, GELU, ...)."""

from __future__ import annotations

import math

import numpy as np

from ..activation import RELU, RELU6, RELU_N1_TO_1, fused
from ..registry import kernel


@kernel("SOFTMAX", real_valued=True)
def softmax(op, args, ctx):
    """exp(beta * (x - max)) / sum over the last axis."""
    x = args[0]
    beta = getattr(op.options, "beta", 0.0)
    e = np.exp((x - x.max(axis=-1, keepdims=True)) * beta)
    return e / e.sum(axis=-1, keepdims=True)


@kernel("LOG_SOFTMAX", real_valued=True)
def log_softmax(op, args, ctx):
    x = args[0]
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@kernel("LOGISTIC", real_valued=True)
def logistic(op, args, ctx):
    return 1 / (1 + np.exp(-args[0]))


@kernel("TANH", real_valued=True)
def tanh(op, args, ctx):
    return np.tanh(args[0])


@kernel("RELU", real_valued=True)
def relu(op, args, ctx):
    return fused(args[0], RELU)


@kernel("RELU6", real_valued=True)
def relu6(op, args, ctx):
    return fused(args[0], RELU6)


@kernel("RELU_N1_TO_1", real_valued=True)
def relu_n1_to_1(op, args, ctx):
    return fused(args[0], RELU_N1_TO_1)


@kernel("RELU_0_TO_1", real_valued=True)
def relu_0_to_1(op, args, ctx):
    return np.clip(args[0], 0, 1)


@kernel("LEAKY_RELU", real_valued=True)
def leaky_relu(op, args, ctx):
    """``x > 0 ? x : alpha * x`` (alpha may exceed 1 or be negative)."""
    x = args[0]
    return np.where(x > 0, x, x * getattr(op.options, "alpha", 0.0))


@kernel("PRELU", real_valued=True)
def prelu(op, args, ctx):
    """``x >= 0 ? x : alpha * x`` with ``alpha`` broadcast against ``x``."""
    x, alpha = args
    return np.where(x >= 0, x, x * alpha)


@kernel("ELU", real_valued=True)
def elu(op, args, ctx):
    x = args[0]
    return np.where(x < 0, np.expm1(x), x)


@kernel("HARD_SWISH", real_valued=True)
def hard_swish(op, args, ctx):
    x = args[0]
    return x * np.clip(x + 3, 0, 6) / 6


@kernel("GELU", real_valued=True)
def gelu(op, args, ctx):
    """Exact ``x/2 * erfc(-x/sqrt(2))`` or the tanh approximation (``approximate``)."""
    x = args[0]
    v = x.astype(np.float64)
    if getattr(op.options, "approximate", False):
        inner = math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)
        result = 0.5 * v * (1 + np.tanh(inner))
    else:
        result = 0.5 * v * _erfc(-v / math.sqrt(2))
    return result.astype(x.dtype)


def _erfc(z: np.ndarray) -> np.ndarray:
    """The complementary error function in float64 (relative error below 1e-12).

    |z| < 2: the series erf(a) = 2/sqrt(pi) exp(-a^2) sum (2a^2)^n a / (1*3*...*(2n+1)),
    whose terms are all positive; |z| >= 2: the continued fraction
    erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))).
    """
    a = np.abs(z)
    near = a < 2
    s = np.where(near, a, 0.0)
    term = s
    total = s
    for n in range(1, 40):
        term = term * (2 * s * s) / (2 * n + 1)
        total = total + term
    erfc_near = 1 - 2 / math.sqrt(math.pi) * np.exp(-s * s) * total
    c = np.where(near, 2.0, a)
    fraction = c
    for n in range(40, 0, -1):
        fraction = c + (n / 2) / fraction
    erfc_far = np.exp(-c * c) / (math.sqrt(math.pi) * fraction)
    result = np.where(near, erfc_near, erfc_far)
    return np.where(z < 0, 2 - result, result)
