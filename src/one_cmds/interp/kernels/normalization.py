"""Normalizations: L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION and the circle-only
INSTANCE_NORM and RMS_NORM (semantics of ONE's luci-interpreter: float64 statistics)."""

from __future__ import annotations

import numpy as np

from ..activation import activation_of, fused
from ..context import InterpreterError
from ..registry import kernel

_L2_EPSILON = 1e-6  # LiteRT's lower bound of the norm


@kernel("L2_NORMALIZATION", real_valued=True)
def l2_normalization(op, args, ctx):
    """``x / max(sqrt(sum(x^2)), 1e-6)`` over the last axis."""
    x = args[0]
    norm = np.sqrt(np.sum(x * x, axis=-1, keepdims=True))
    return fused(x / np.maximum(norm, _L2_EPSILON), activation_of(op))


@kernel("LOCAL_RESPONSE_NORMALIZATION", real_valued=True)
def local_response_normalization(op, args, ctx):
    """``x * (bias + alpha * sum(x^2 over channels c-radius..c+radius)) ** -beta``."""
    x = args[0]
    o = op.options
    radius = o.radius
    squares = np.pad(x * x, [(0, 0)] * (x.ndim - 1) + [(radius, radius)])
    window = np.lib.stride_tricks.sliding_window_view(squares, 2 * radius + 1, axis=-1)
    accum = window.sum(axis=-1, dtype=x.dtype)
    return x * np.power(o.bias + o.alpha * accum, -o.beta)


@kernel("INSTANCE_NORM", real_valued=True)
def instance_norm(op, args, ctx):
    """Normalize per batch and channel: NHWC over H and W (rank 4), (N, C, D) over D
    (rank 3); then ``gamma * (x - mean) / sqrt(var + epsilon) + beta`` per channel."""
    x, gamma, beta = args
    if x.ndim == 4:
        axes, channel_axis = (1, 2), 3
    elif x.ndim == 3:
        axes, channel_axis = (2,), 1
    else:
        raise InterpreterError(f"INSTANCE_NORM supports inputs of rank 3 or 4, not {x.ndim}")
    v = x.astype(np.float64)
    mean = v.mean(axis=axes, keepdims=True)
    var = (v * v).mean(axis=axes, keepdims=True) - mean * mean
    shape = [1] * x.ndim
    shape[channel_axis] = -1
    g = gamma.astype(np.float64).reshape(shape)
    b = beta.astype(np.float64).reshape(shape)
    a = g / np.sqrt(var + op.options.epsilon)
    out = (v * a + (b - mean * a)).astype(x.dtype)
    return fused(out, activation_of(op))


@kernel("RMS_NORM", real_valued=True)
def rms_norm(op, args, ctx):
    """``gamma * x / sqrt(mean(x^2) + epsilon)`` over the last axis."""
    x, gamma = args
    v = x.astype(np.float64)
    rms = np.sqrt((v * v).mean(axis=-1, keepdims=True) + op.options.epsilon)
    return (gamma.astype(np.float64) * (v / rms)).astype(x.dtype)
