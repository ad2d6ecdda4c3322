"""``unroll_unidirseqlstm``: a float32 UNIDIRECTIONAL_SEQUENCE_LSTM becomes builtin operators,
one cell per time step (reference UnrollUnidirectionalSequenceLSTMPass).

Conditions: a static rank-3 input; the four input, four recurrent weights and four gate
biases constant float32 of consistent shapes; no CIFG, peephole, projection or layer
normalization; activation TANH, RELU, RELU6 or RELU_N1_TO_1; no diagonal recurrent
weights; both state inputs variables without initial data (LiteRT starts them at zero) that
no other operator reads; the output read by something.

Result: ``Unpack`` of the input along its time axis, then per step t (z = x_t's gates)::

    z = FC(x_t, [W_i; W_f; W_c; W_o], [b_i; b_f; b_c; b_o]) (+ FC(h, [R_i; R_f; R_c; R_o]))
    i, f, g, o = Split(z, 4) through Logistic, Logistic, act, Logistic
    c = i·g (+ f·c), clipped to ±cellClip by Minimum/Maximum when it is set
    h = o·act(c)

and ``Pack`` of the h along the time axis. The first step has no recurrent FC and no f·c
term (the states are zero). Every new operator copies the LSTM's origin. Registered
``exact=False``: ``R·h + (W·x + b)`` sums in another order than LiteRT's kernel.

Reference: always reads the input as batch-major (``time_major`` ignored), ignores the
activation (always Tanh) and ``cell_clip``, unpacks the batch axis of a one-step sequence
(wrong for batch > 1), has no conditions on peephole/projection/CIFG inputs, and copies the
merged weights for every step. Here: the conditions above, the time axis from
``time_major``, the LSTM's activation and cell clip, and one merged weights constant shared
by all steps; Unpack/Pack work on the time axis directly (no Transposes).
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import ACTIVATION_OPCODES, GraphEditor, const_value, new_options

_UNSUPPORTED = (9, 10, 11, 16, 17, 20, 21, 22, 23)  # peephole, projection, layer norm
_OUTPUT_STATE, _CELL_STATE = 18, 19
_BINARY_OPTIONS = {
    "ADD": "AddOptions",
    "MUL": "MulOptions",
    "MINIMUM": "MaximumMinimumOptions",
    "MAXIMUM": "MaximumMinimumOptions",
}


def _zero_state(g: GraphEditor, lstm: Operator, t: Tensor | None) -> bool:
    """A variable state that starts at zero and that only ``lstm`` uses."""
    if t is None or not t.is_variable or g.is_output(t) or g.consumers(t) != [lstm]:
        return False
    return t.data is None or not np.any(t.data)


def _weights(lstm: Operator) -> list[np.ndarray] | None:
    """The 4 input weights, 4 recurrent weights and 4 biases, checked against each other."""
    inputs = lstm.inputs
    tensors = [*inputs[1:9], *inputs[12:16]]
    values = [const_value(t) for t in tensors]
    if any(v is None or t.dtype != "FLOAT32" for t, v in zip(tensors, values, strict=True)):
        return None
    cells, features = values[0].shape if values[0].ndim == 2 else (0, 0)
    shapes = [(cells, features)] * 4 + [(cells, cells)] * 4 + [(cells,)] * 4
    if cells == 0 or any(v.shape != s for v, s in zip(values, shapes, strict=True)):
        return None
    return values


def _eligible(g: GraphEditor, lstm: Operator) -> list[np.ndarray] | None:
    options, out = lstm.options, lstm.outputs[0]
    if len(lstm.inputs) not in (20, 24):  # 20: without the layer-norm inputs
        return None
    inputs = [*lstm.inputs, *[None] * (24 - len(lstm.inputs))]
    x = inputs[0]
    if (
        options is None
        or options.fusedActivationFunction not in ACTIVATION_OPCODES
        or getattr(options, "diagonalRecurrentTensors", False)
        or any(inputs[k] is not None for k in _UNSUPPORTED)
        or x.dtype != "FLOAT32"
        or len(x.shape) != 3
        or not x.is_static
        or out.dtype != "FLOAT32"
        or not (g.consumers(out) or g.is_output(out))
    ):
        return None
    if not (
        _zero_state(g, lstm, inputs[_OUTPUT_STATE]) and _zero_state(g, lstm, inputs[_CELL_STATE])
    ):
        return None
    weights = _weights(lstm)
    return weights if weights is not None and weights[0].shape[1] == x.shape[2] else None


@graph_pass("unroll_unidirseqlstm", exact=False)
def unroll_unidirseqlstm(g: GraphEditor) -> int:
    rewrites = 0
    for lstm in g.ops("UNIDIRECTIONAL_SEQUENCE_LSTM"):
        weights = _eligible(g, lstm)
        if weights is not None:
            _unroll(g, lstm, weights)
            rewrites += 1
    return rewrites


def _unroll(g: GraphEditor, lstm: Operator, weights: list[np.ndarray]) -> None:
    options, x, out = lstm.options, lstm.inputs[0], lstm.outputs[0]
    base = out.name
    time_axis = 0 if options.timeMajor else 1
    steps, batch = x.shape[time_axis], x.shape[1 - time_axis]
    cells = weights[0].shape[0]
    act = ACTIVATION_OPCODES[options.fusedActivationFunction]
    clip = float(options.cellClip)

    def op(opcode: str, inputs: list, opts: object = None, *, name: str) -> Tensor:
        return g.op(opcode, inputs, opts, origin=lstm.origin, name=f"{base}/{name}").outputs[0]

    def binary(opcode: str, a: Tensor, b: Tensor, name: str) -> Tensor:
        return op(opcode, [a, b], new_options(_BINARY_OPTIONS[opcode]), name=name)

    w_x = g.const(f"{base}/input_weights", np.concatenate(weights[0:4]))
    w_h = g.const(f"{base}/recurrent_weights", np.concatenate(weights[4:8]))
    bias = g.const(f"{base}/bias", np.concatenate(weights[8:12]))
    split_axis = g.const(f"{base}/split_axis", np.int32(1))
    bounds = [g.const(f"{base}/cell_clip", np.float32(v)) for v in (clip, -clip) if clip > 0]
    fc_options = new_options("FullyConnectedOptions")
    frames = [g.tensor(f"{base}/x{t}", "FLOAT32", (batch, x.shape[2])) for t in range(steps)]
    g.op(
        "UNPACK",
        [x],
        new_options("UnpackOptions", num=steps, axis=time_axis),
        origin=lstm.origin,
        outputs=frames,
    )
    h: Tensor | None = None
    c: Tensor | None = None
    results = []
    for t, frame in enumerate(frames):
        z = op("FULLY_CONNECTED", [frame, w_x, bias], fc_options, name=f"fc{t}")
        if h is not None:
            recurrent = op("FULLY_CONNECTED", [h, w_h, None], fc_options, name=f"fcr{t}")
            z = binary("ADD", recurrent, z, f"gates{t}")
        parts = [g.tensor(f"{base}/split{t}_{k}", "FLOAT32", (batch, cells)) for k in range(4)]
        split = new_options("SplitOptions", numSplits=4)
        g.op("SPLIT", [split_axis, z], split, origin=lstm.origin, outputs=parts)
        i, o = (op("LOGISTIC", [parts[k]], name=f"gate{t}_{k}") for k in (0, 3))
        cell = binary("MUL", i, op(act, [parts[2]], name=f"cell_gate{t}"), f"input{t}")
        if c is not None:
            f = op("LOGISTIC", [parts[1]], name=f"gate{t}_1")
            cell = binary("ADD", cell, binary("MUL", f, c, f"forget{t}"), f"cell{t}")
        if bounds:
            cell = binary("MINIMUM", cell, bounds[0], f"clip_high{t}")
            cell = binary("MAXIMUM", cell, bounds[1], f"clip_low{t}")
        h, c = binary("MUL", o, op(act, [cell], name=f"cell_act{t}"), f"h{t}"), cell
        results.append(h)
    pack = new_options("PackOptions", valuesCount=steps, axis=time_axis)
    packed = g.op("PACK", results, pack, origin=lstm.origin, like=out)
    g.replace(out, packed.outputs[0])
