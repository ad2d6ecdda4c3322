"""Recurrent cells: UNIDIRECTIONAL_SEQUENCE_LSTM and UNIDIRECTIONAL_SEQUENCE_RNN (float32), as
LiteRT computes them.

LSTM inputs (TFLite order): 0 input; 1-4 input-to-{input, forget, cell, output} weights [cells,
features]; 5-8 recurrent-to-{...} weights [cells, outputs]; 9-11 peephole cell-to-{input,
forget, output} weights [cells]; 12-15 gate biases [cells]; 16 projection weights [outputs,
cells]; 17 projection bias [outputs]; 18 output state [batch, outputs]; 19 cell state [batch,
cells] (the variable state tensors; an omitted state starts at zero, as LiteRT resets its
variables); 20-23 layer-norm coefficients of the four gates [cells] (a 20-input LSTM has none).

Supported: time-major and batch-major rank-3 inputs, CIFG (no input-gate weights: the input
gate is ``1 - forget``), peephole, projection with ``projClip``, ``cellClip``, layer
normalization, and every fused activation but NONE (LiteRT leaves its output scratch buffer
unset then, so there is no defined result). Refused with a ValueError: quantized and hybrid
operands, ``diagonalRecurrentTensors``, NONE.

Per time step, with ``act`` the fused activation and ``σ`` the logistic function::

    z_k = W_k x + R_k h + p_k ⊙ c (peephole; the output gate sees the new c) + b_k
          (layer norm: z_k = norm(W_k x + R_k h + p_k ⊙ c) ⊙ l_k + b_k)
    i = σ(z_i) (CIFG: 1 - f), f = σ(z_f), g = act(z_c), o = σ(z_o)
    c = clip(f ⊙ c + i ⊙ g), h = o ⊙ act(c), then h = clip(P h + q) with a projection.

RNN inputs: 0 input; 1 input weights [units, features]; 2 recurrent weights [units, units];
3 bias [units]; 4 hidden state [batch, units] (variable, starts at zero). Per time step
``h = act(W x + R h + b)`` (any fused activation, NONE the identity).
"""

from __future__ import annotations

import numpy as np

from ..activation import NONE, fused
from ..registry import kernel
from .conv import float_args, options_of

# LiteRT's variance offset in the layer normalization of the gates.
_LAYER_NORM_EPSILON = 1e-8

INPUT_GATE, FORGET_GATE, CELL_GATE, OUTPUT_GATE = range(4)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-z))


def _normalized(z: np.ndarray) -> np.ndarray:
    mean = z.mean(axis=-1, keepdims=True)
    variance = np.square(z - mean).mean(axis=-1, keepdims=True)
    return (z - mean) / np.sqrt(variance + np.float32(_LAYER_NORM_EPSILON))


def _clipped(x: np.ndarray, clip: float) -> np.ndarray:
    return np.clip(x, -clip, clip).astype(x.dtype, copy=False) if clip > 0 else x


@kernel("UNIDIRECTIONAL_SEQUENCE_LSTM", real_valued=True)
def unidirectional_sequence_lstm(op, args, ctx):
    """The output sequence ([time, batch, outputs] or [batch, time, outputs])."""
    a = float_args(op, args, 24)
    options = options_of(op)
    code = options.fusedActivationFunction
    if code == NONE:
        raise ValueError("an LSTM with fused activation NONE has no defined result in LiteRT")
    if getattr(options, "diagonalRecurrentTensors", False):
        raise ValueError("diagonal recurrent weights are not supported")
    x = a[0]
    if x.ndim != 3:
        raise ValueError(f"the input has rank {x.ndim}, expected 3")
    steps = x if options.timeMajor else np.swapaxes(x, 0, 1)  # [time, batch, features]
    batch = steps.shape[1]
    cells, outputs = a[8].shape
    h = np.zeros((batch, outputs), np.float32) if a[18] is None else a[18]
    c = np.zeros((batch, cells), np.float32) if a[19] is None else a[19]
    layer_norm = a[21] is not None

    def gate(k: int, x_t: np.ndarray, state: np.ndarray | None) -> np.ndarray:
        z = x_t @ a[1 + k].T + h @ a[5 + k].T
        peephole = a[9 + k] if k < CELL_GATE else a[11] if k == OUTPUT_GATE else None
        if peephole is not None:
            z = z + state * peephole
        if layer_norm:
            return _normalized(z) * a[20 + k] + a[12 + k]
        return z + a[12 + k]

    results = []
    for x_t in steps:
        f = _sigmoid(gate(FORGET_GATE, x_t, c))
        i = 1 - f if a[1] is None else _sigmoid(gate(INPUT_GATE, x_t, c))
        g = fused(gate(CELL_GATE, x_t, None), code)
        c = _clipped(f * c + i * g, options.cellClip)
        h = _sigmoid(gate(OUTPUT_GATE, x_t, c)) * fused(c, code)
        if a[16] is not None:
            h = h @ a[16].T
            h = _clipped(h if a[17] is None else h + a[17], options.projClip)
        results.append(h)
    sequence = np.stack(results)
    return sequence if options.timeMajor else np.swapaxes(sequence, 0, 1)


@kernel("UNIDIRECTIONAL_SEQUENCE_RNN", real_valued=True)
def unidirectional_sequence_rnn(op, args, ctx):
    """The output sequence ([time, batch, units] or [batch, time, units])."""
    x, w, r, b, state = float_args(op, args, 5)
    options = options_of(op)
    if x.ndim != 3:
        raise ValueError(f"the input has rank {x.ndim}, expected 3")
    steps = x if options.timeMajor else np.swapaxes(x, 0, 1)  # [time, batch, features]
    h = np.zeros((steps.shape[1], w.shape[0]), np.float32) if state is None else state
    results = []
    for x_t in steps:
        h = fused(x_t @ w.T + h @ r.T + b, options.fusedActivationFunction)
        results.append(h)
    sequence = np.stack(results)
    return sequence if options.timeMajor else np.swapaxes(sequence, 0, 1)
