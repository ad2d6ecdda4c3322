"""LSTM, GRU, RNN (onnx-import.md §6.4).

Every direction reads the time-major input ``[seq, batch, input]`` (``layout`` 1: a TRANSPOSE
first). Unrolled (GRU always, LSTM with ``unroll_lstm``, RNN with ``unroll_rnn``): one
FULLY_CONNECTED projects the input of every step at once and UNPACK gives the steps; then per
step a FULLY_CONNECTED of the state, ADD, SPLIT into gates, the activations (``clip`` as
MINIMUM/MAXIMUM on the input of each gate activation, where onnxruntime applies it), MUL for
peepholes and gating. Otherwise LSTM becomes UNIDIRECTIONAL_SEQUENCE_LSTM and RNN
UNIDIRECTIONAL_SEQUENCE_RNN (time major; REVERSE_V2 around a reverse direction), whose state
inputs are variable tensors that start at zero; a node they cannot compute (initial states,
Y_c, ``clip``, activations other than sigmoid gates with one fused activation, an unknown
batch size, which the variable states need) is unrolled instead. LiteRT keeps the final
states in those variables, so a second ``invoke`` without ``reset_all_variables`` starts from
them; the unrolled form has no state. Outputs: Y = PACK of the directions' sequences on axis 1
``[seq, dirs, batch, hidden]``, Y_h and Y_c = PACK of the last states on axis 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from onnx import numpy_helper

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import options, transpose
from .fusions import Uses

ACTIVATIONS = {"sigmoid": "LOGISTIC", "tanh": "TANH", "relu": "RELU"}
FUSED = {"TANH": 4, "RELU": 1}  # ActivationFunctionType of the sequence operators
BINARY = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions",
          "MINIMUM": "MaximumMinimumOptions", "MAXIMUM": "MaximumMinimumOptions"}  # fmt: skip


@dataclass
class Cell:
    """One direction: weights in ONNX gate order, activations (circle opcodes), initial states
    (None: zero), peepholes ``[3 * hidden]`` (order i, o, f; None: none)."""

    w: np.ndarray  # [gates * hidden, input]
    r: np.ndarray  # [gates * hidden, hidden]
    wb: np.ndarray  # [gates * hidden]
    rb: np.ndarray  # [gates * hidden]
    acts: list[str]
    reverse: bool
    h0: Tensor | None
    c0: Tensor | None = None
    peephole: np.ndarray | None = None


@dataclass
class Recurrent:
    """A recurrent node read: its cells, the time-major input, the outputs it needs."""

    node: Node
    cells: list[Cell]
    x: Tensor  # [seq, batch, input]
    steps: int
    batch: int | None
    hidden: int
    clip: float | None
    layout: int
    uses: Uses
    shared: dict[str, Tensor] = field(default_factory=dict)

    def needs(self, k: int) -> bool:
        """Whether output ``k`` (Y, Y_h, Y_c) is read by a node or is a graph output."""
        name = self.node.outputs[k] if k < len(self.node.outputs) else ""
        return bool(name) and (name in self.uses.readers or name in self.uses.escaping)

    def constant(self, lo: Lowering, purpose: str, value: np.ndarray) -> Tensor:
        """A constant shared by all the steps of the node."""
        if purpose not in self.shared:
            self.shared[purpose] = lo.constant(value, lo.helper_name(purpose))
        return self.shared[purpose]


# -- reading the node ----------------------------------------------------------------------------
def _read(node: Node, lo: Lowering, gates: int, defaults: list[str]) -> Recurrent:
    """The node's attributes and constant operands, or :class:`Unsupported`."""
    direction = node.attr("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        raise Unsupported(f"direction '{direction}' is not supported")
    dirs = 2 if direction == "bidirectional" else 1
    for name in ("activation_alpha", "activation_beta"):
        if node.attr(name) is not None:
            raise Unsupported(f"{name} {list(node.attr(name))} is not supported")
    if node.attr("input_forget", 0):
        raise Unsupported(f"input_forget {node.attr('input_forget')} is not supported")
    acts = _activations(node, defaults, dirs)
    layout = int(node.attr("layout", 0))
    x_name = node.input(0)
    rank = lo.rank(x_name)
    if rank != 3:
        raise Unsupported(f"rank {rank} is not supported")
    shape = lo.shape(x_name)
    steps, batch = shape[layout], shape[1 - layout]  # type: ignore[index]
    if steps is None:
        raise Unsupported(f"dimension {layout} of '{x_name}' must be known")
    _check_sequence_lens(node, lo, steps)
    w = lo.require_const(node.input(1)).astype(np.float32)
    r = lo.require_const(node.input(2)).astype(np.float32)
    hidden = r.shape[-1]
    b = _bias(node, lo, dirs, 2 * gates * hidden)
    x = lo.value(x_name)
    if layout:
        x = transpose(lo, x, (1, 0, 2), "time_major")
    uses = Uses(lo)
    h0 = _initial(lo, uses, node.input(5), dirs, layout)
    cells = [
        Cell(w[d], r[d], b[d, : gates * hidden], b[d, gates * hidden :], acts[d],
             reverse=direction == "reverse" or d == 1, h0=h0[d])
        for d in range(dirs)
    ]  # fmt: skip
    return Recurrent(node, cells, x, steps, batch, hidden, node.attr("clip"), layout, uses)


def _activations(node: Node, defaults: list[str], dirs: int) -> list[list[str]]:
    """Per direction, the circle opcodes of the node's activations."""
    names = [a.decode() if isinstance(a, bytes) else a for a in node.attr("activations", [])]
    names = names or defaults * dirs
    for name in names:
        if name.lower() not in ACTIVATIONS:
            raise Unsupported(f"activations '{name}' is not supported")
    if len(names) != len(defaults) * dirs:
        raise Unsupported(f"activations {names} is not supported")
    opcodes = [ACTIVATIONS[n.lower()] for n in names]
    return [opcodes[d * len(defaults) : (d + 1) * len(defaults)] for d in range(dirs)]


def _check_sequence_lens(node: Node, lo: Lowering, steps: int) -> None:
    """``sequence_lens`` is accepted only when it is constant and every length is ``steps``."""
    name = node.input(4)
    if not name:
        return
    lens = lo.require_const(name)
    if np.any(lens != steps):
        raise Unsupported(f"sequence_lens {lens.tolist()} is not supported")


def _bias(node: Node, lo: Lowering, dirs: int, size: int) -> np.ndarray:
    """``B`` ([dirs, Wb + Rb]) or zeros."""
    name = node.input(3)
    if not name:
        return np.zeros((dirs, size), np.float32)
    return lo.require_const(name).astype(np.float32)


def _initial(lo: Lowering, uses: Uses, name: str, dirs: int, layout: int) -> list[Tensor | None]:
    """An initial state ``[dirs, batch, hidden]`` (layout 1: ``[batch, dirs, hidden]``) per
    direction; None where it is absent or zero."""
    if not name or _zeros(lo, uses, name):
        return [None] * dirs
    value = lo.const(name)
    if value is None:
        return _unpack(lo, lo.value(name), dirs, layout)
    per_dir = np.moveaxis(value.astype(np.float32), layout, 0)
    return [lo.constant(v, lo.helper_name("initial")) if np.any(v) else None for v in per_dir]


def _zeros(lo: Lowering, uses: Uses, name: str) -> bool:
    """Whether a value not constant is zeros of a runtime shape: ConstantOfShape of 0 or
    Expand of a zero constant (PyTorch's initial states for a dynamic batch)."""
    node = uses.made_by(name, "ConstantOfShape", "Expand")
    if node is None:
        return False
    if node.op_type == "Expand":
        value = lo.const(node.input(0))
    else:
        fill = node.attr("value")
        value = np.zeros(1) if fill is None else numpy_helper.to_array(fill)
    return value is not None and not np.any(value)


# -- emitting ------------------------------------------------------------------------------------
def _binary(lo: Lowering, opcode: str, a: Tensor, b: Tensor) -> Tensor:
    return lo.emit(opcode, [a, b], BINARY[opcode])


def _activate(lo: Lowering, rec: Recurrent, opcode: str, z: Tensor) -> Tensor:
    """``opcode(z)``, ``z`` first clipped to ±``clip``."""
    if rec.clip is not None:
        high = rec.constant(lo, "clip_high", np.float32(rec.clip))
        low = rec.constant(lo, "clip_low", np.float32(-rec.clip))
        z = _binary(lo, "MAXIMUM", _binary(lo, "MINIMUM", z, high), low)
    return lo.emit(opcode, [z])


def _weights(lo: Lowering, w: np.ndarray, b: np.ndarray | None = None) -> tuple[Tensor, ...]:
    """FULLY_CONNECTED weights ``[units, depth]`` and bias (None when zero) as constants."""
    bias = None if b is None or not np.any(b) else lo.constant(b, lo.helper_name("bias"))
    return lo.constant(w, lo.helper_name("weights")), bias


def _fc(lo: Lowering, x: Tensor, weights: tuple[Tensor, ...], keep: bool = False) -> Tensor:
    fc_options = options("FullyConnectedOptions", keepNumDims=keep)
    return lo.emit("FULLY_CONNECTED", [x, *weights], fc_options)


def _recurrent(lo: Lowering, frame: Tensor, h: Tensor | None, weights: tuple[Tensor, ...]):
    """``frame + h·Rᵀ`` (``frame`` while the state is zero)."""
    return frame if h is None else _binary(lo, "ADD", frame, _fc(lo, h, weights))


def _split(lo: Lowering, rec: Recurrent, z: Tensor, parts: int) -> list[Tensor]:
    """SPLIT of ``[batch, parts * hidden]`` into the gates."""
    axis = rec.constant(lo, "split_axis", np.array(1, np.int32))
    return lo.emit("SPLIT", [axis, z], options("SplitOptions", numSplits=parts), outputs=parts)


def _pack(lo: Lowering, tensors: list[Tensor], axis: int) -> Tensor:
    return lo.emit("PACK", tensors, options("PackOptions", valuesCount=len(tensors), axis=axis))


def _unpack(lo: Lowering, x: Tensor, num: int, axis: int) -> list[Tensor]:
    parts = lo.emit("UNPACK", [x], options("UnpackOptions", num=num, axis=axis), outputs=num)
    return parts if num > 1 else [parts]


def _frames(lo: Lowering, rec: Recurrent, w: np.ndarray, b: np.ndarray) -> list[Tensor]:
    """``x_t·wᵀ + b`` for every step t (one FULLY_CONNECTED, then UNPACK)."""
    return _unpack(lo, _fc(lo, rec.x, _weights(lo, w, b), keep=True), rec.steps, 0)


def _order(rec: Recurrent, cell: Cell) -> range:
    return range(rec.steps - 1, -1, -1) if cell.reverse else range(rec.steps)


@dataclass
class Result:
    """One direction's outputs: the sequence ``[seq, batch, hidden]`` (or its steps in time
    order) and the last states ``[batch, hidden]`` (None where not needed or not computed)."""

    sequence: Tensor | list[Tensor] | None
    h: Tensor | None
    c: Tensor | None = None


def _bind(lo: Lowering, rec: Recurrent, results: list[Result]) -> None:
    """Y, Y_h, Y_c from the directions' results (layout 1 transposed back)."""
    outs = rec.node.outputs
    if rec.needs(0):
        seqs = [r.sequence if isinstance(r.sequence, Tensor) else _pack(lo, r.sequence, 0)  # type: ignore[arg-type]
                for r in results]  # fmt: skip
        y = _pack(lo, seqs, 1)
        lo.bind(outs[0], transpose(lo, y, (2, 0, 1, 3), "layout") if rec.layout else y)
    for k, states in ((1, [r.h for r in results]), (2, [r.c for r in results])):
        if rec.needs(k):
            y = _pack(lo, states, 0)  # type: ignore[arg-type]
            lo.bind(outs[k], transpose(lo, y, (1, 0, 2), "layout") if rec.layout else y)


def _lower(lo: Lowering, rec: Recurrent, unroll: bool, unrolled, sequence) -> None:
    """Each cell as ``sequence(lo, rec, cell, fused)`` when a sequence operator computes the
    node and ``unroll`` is off, else as ``unrolled(lo, rec, cell)``; then the outputs."""
    fused = None if unroll else _fused(rec)
    if fused is None:
        results = [unrolled(lo, rec, cell) for cell in rec.cells]
    else:
        results = [sequence(lo, rec, c, f) for c, f in zip(rec.cells, fused, strict=True)]
    _bind(lo, rec, results)


def _fused(rec: Recurrent) -> list[int] | None:
    """Per cell, the fused activation of a sequence operator computing the node, or None when
    none can: initial states, Y_c, ``clip``, an unknown batch (the variable states' shape),
    gates other than sigmoid, cell and hidden activations that differ or do not fuse."""
    if rec.needs(2) or rec.clip is not None or rec.batch is None:
        return None
    codes = []
    for cell in rec.cells:
        *gates, g, h = cell.acts * 2 if len(cell.acts) == 1 else cell.acts
        if cell.h0 is not None or cell.c0 is not None or g != h or g not in FUSED:
            return None
        if any(a != "LOGISTIC" for a in gates):
            return None
        codes.append(FUSED[g])
    return codes


def _state(lo: Lowering, rec: Recurrent, purpose: str) -> Tensor:
    """A variable state tensor ``[batch, hidden]`` (LiteRT starts it at zero)."""
    return Tensor(lo.helper_name(purpose), "FLOAT32", (rec.batch, rec.hidden), is_variable=True)


def _reversed(lo: Lowering, rec: Recurrent, x: Tensor, cell: Cell) -> Tensor:
    """``x`` with its time axis reversed for a reverse cell."""
    if not cell.reverse:
        return x
    axis = rec.constant(lo, "time_axis", np.array([0], np.int32))
    return lo.emit("REVERSE_V2", [x, axis], "ReverseV2Options")


def _sequence_result(lo: Lowering, rec: Recurrent, cell: Cell, out: Tensor) -> Result:
    """The sequence in time order and the last state (the operator's last step)."""
    h = None
    if rec.needs(1):
        last = rec.constant(lo, "last_step", np.array(rec.steps - 1, np.int32))
        h = lo.emit("GATHER", [out, last], options("GatherOptions", axis=0))
    return Result(_reversed(lo, rec, out, cell) if rec.needs(0) else None, h)


# -- LSTM ----------------------------------------------------------------------------------------
@converter("LSTM")
def lstm(node: Node, lo: Lowering) -> None:
    rec = _read(node, lo, 4, ["Sigmoid", "Tanh", "Tanh"])
    peepholes = lo.require_const(node.input(7)).astype(np.float32) if node.input(7) else None
    c0 = _initial(lo, rec.uses, node.input(6), len(rec.cells), rec.layout)
    for d, cell in enumerate(rec.cells):
        cell.c0 = c0[d]
        cell.peephole = None if peepholes is None or not np.any(peepholes[d]) else peepholes[d]
    _lower(lo, rec, lo.options.unroll_lstm, _lstm_unrolled, _lstm_sequence)


def _lstm_unrolled(lo: Lowering, rec: Recurrent, cell: Cell) -> Result:
    """Per step: z = x_t·Wᵀ + h·Rᵀ + b split into i, o, f, c; i, f = f(z + p ⊙ c);
    c = f ⊙ c + i ⊙ g(z_c); o = f(z_o + p_o ⊙ c); h = o ⊙ h(c)."""
    f_act, g_act, h_act = cell.acts
    frames = _frames(lo, rec, cell.w, cell.wb + cell.rb)
    recurrent = _weights(lo, cell.r)
    p_i, p_o, p_f = _peepholes(lo, cell)
    h, c = cell.h0, cell.c0
    sequence: list[Tensor] = [frames[0]] * rec.steps  # each step's h replaces its entry
    for t in _order(rec, cell):
        z_i, z_o, z_f, z_c = _split(lo, rec, _recurrent(lo, frames[t], h, recurrent), 4)
        i = _activate(lo, rec, f_act, _peephole(lo, z_i, c, p_i))
        new_c = _binary(lo, "MUL", i, _activate(lo, rec, g_act, z_c))
        if c is not None:
            f = _activate(lo, rec, f_act, _peephole(lo, z_f, c, p_f))
            new_c = _binary(lo, "ADD", _binary(lo, "MUL", f, c), new_c)
        c = new_c
        o = _activate(lo, rec, f_act, _peephole(lo, z_o, c, p_o))
        h = sequence[t] = _binary(lo, "MUL", o, lo.emit(h_act, [c]))
    return Result(sequence, h, c)


def _peepholes(lo: Lowering, cell: Cell) -> list[Tensor | None]:
    """The peephole constants of the i, o, f gates (None without peepholes)."""
    if cell.peephole is None:
        return [None] * 3
    return [lo.constant(p, lo.helper_name("peephole")) for p in np.split(cell.peephole, 3)]


def _peephole(lo: Lowering, z: Tensor, c: Tensor | None, p: Tensor | None) -> Tensor:
    """``z + p ⊙ c`` (``z`` without peephole or while the cell state is zero)."""
    if p is None or c is None:
        return z
    return _binary(lo, "ADD", z, _binary(lo, "MUL", c, p))


def _lstm_sequence(lo: Lowering, rec: Recurrent, cell: Cell, fused: int) -> Result:
    """UNIDIRECTIONAL_SEQUENCE_LSTM (time major; TFLite gate order i, f, c, o)."""

    def gates(a: np.ndarray, purpose: str) -> list[Tensor]:
        i, o, f, c = np.split(a, 4)
        return [lo.constant(v, lo.helper_name(purpose)) for v in (i, f, c, o)]

    p_i, p_o, p_f = _peepholes(lo, cell)
    states = [_state(lo, rec, "h_state"), _state(lo, rec, "c_state")]
    inputs = [_reversed(lo, rec, rec.x, cell), *gates(cell.w, "w"), *gates(cell.r, "r"),
              p_i, p_f, p_o, *gates(cell.wb + cell.rb, "b"), None, None, *states,
              None, None, None, None]  # fmt: skip
    lstm_options = options(
        "UnidirectionalSequenceLSTMOptions", fusedActivationFunction=fused, timeMajor=True
    )
    out = lo.emit("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, lstm_options)
    return _sequence_result(lo, rec, cell, out)


# -- GRU -----------------------------------------------------------------------------------------
@converter("GRU")
def gru(node: Node, lo: Lowering) -> None:
    rec = _read(node, lo, 3, ["Sigmoid", "Tanh"])
    before_reset = bool(node.attr("linear_before_reset", 0))
    _bind(lo, rec, [_gru_unrolled(lo, rec, cell, before_reset) for cell in rec.cells])


def _gru_unrolled(lo: Lowering, rec: Recurrent, cell: Cell, before_reset: bool) -> Result:
    """Per step (gates z, r, h): z, r = f(x_t·W_zrᵀ + h·R_zrᵀ + b), h̃ = g(candidate),
    h = (1 − z) ⊙ h̃ + z ⊙ h."""
    f_act, g_act = cell.acts
    n = 2 * rec.hidden
    rb_h = cell.rb[n:]
    zr_frames = _frames(lo, rec, cell.w[:n], cell.wb[:n] + cell.rb[:n])
    h_frames = _frames(lo, rec, cell.w[n:], cell.wb[n:] + (0 if before_reset else rb_h))
    r_zr = _weights(lo, cell.r[:n])
    r_h = _weights(lo, cell.r[n:], rb_h if before_reset else None)
    h = cell.h0
    sequence: list[Tensor] = [h_frames[0]] * rec.steps  # each step's h replaces its entry
    for t in _order(rec, cell):
        zr = _split(lo, rec, _recurrent(lo, zr_frames[t], h, r_zr), 2)
        z, r = (_activate(lo, rec, f_act, gate) for gate in zr)
        candidate = _gru_candidate(lo, h_frames[t], h, r, r_h, before_reset)
        h = sequence[t] = _gru_update(lo, _activate(lo, rec, g_act, candidate), z, h)
    return Result(sequence, h)


def _gru_candidate(
    lo: Lowering,
    frame: Tensor,
    h: Tensor | None,
    r: Tensor,
    r_h: tuple[Tensor, ...],
    before_reset: bool,
) -> Tensor:
    """``x_t·W_hᵀ + b + (r ⊙ h)·R_hᵀ``, or with ``linear_before_reset`` ``x_t·W_hᵀ + Wb_h +
    r ⊙ (h·R_hᵀ + Rb_h)`` (``frame`` holds ``x_t·W_hᵀ`` and the bias outside the gating)."""
    if h is None:  # h·R_hᵀ + Rb_h is Rb_h (the FULLY_CONNECTED's bias, None when zero)
        gated = None if r_h[1] is None else _binary(lo, "MUL", r, r_h[1])
    elif before_reset:
        gated = _binary(lo, "MUL", r, _fc(lo, h, r_h))
    else:
        gated = _fc(lo, _binary(lo, "MUL", r, h), r_h)
    return frame if gated is None else _binary(lo, "ADD", frame, gated)


def _gru_update(lo: Lowering, candidate: Tensor, z: Tensor, h: Tensor | None) -> Tensor:
    """``(1 − z) ⊙ h̃ + z ⊙ h`` as ``h̃ + z ⊙ (h − h̃)`` (``h̃ − z ⊙ h̃`` while h is zero)."""
    if h is None:
        return _binary(lo, "SUB", candidate, _binary(lo, "MUL", z, candidate))
    return _binary(lo, "ADD", candidate, _binary(lo, "MUL", z, _binary(lo, "SUB", h, candidate)))


# -- RNN -----------------------------------------------------------------------------------------
@converter("RNN")
def rnn(node: Node, lo: Lowering) -> None:
    rec = _read(node, lo, 1, ["Tanh"])
    _lower(lo, rec, lo.options.unroll_rnn, _rnn_unrolled, _rnn_sequence)


def _rnn_unrolled(lo: Lowering, rec: Recurrent, cell: Cell) -> Result:
    """Per step: h = f(x_t·Wᵀ + h·Rᵀ + Wb + Rb)."""
    frames = _frames(lo, rec, cell.w, cell.wb + cell.rb)
    recurrent = _weights(lo, cell.r)
    h = cell.h0
    sequence: list[Tensor] = [frames[0]] * rec.steps  # each step's h replaces its entry
    for t in _order(rec, cell):
        h = sequence[t] = _activate(lo, rec, cell.acts[0], _recurrent(lo, frames[t], h, recurrent))
    return Result(sequence, h)


def _rnn_sequence(lo: Lowering, rec: Recurrent, cell: Cell, fused: int) -> Result:
    """UNIDIRECTIONAL_SEQUENCE_RNN (time major)."""
    w, bias = _weights(lo, cell.w, cell.wb + cell.rb)
    if bias is None:
        bias = lo.constant(np.zeros(rec.hidden, np.float32), lo.helper_name("bias"))
    r, _ = _weights(lo, cell.r)
    inputs = [_reversed(lo, rec, rec.x, cell), w, r, bias, _state(lo, rec, "h_state")]
    rnn_options = options("SequenceRNNOptions", fusedActivationFunction=fused, timeMajor=True)
    out = lo.emit("UNIDIRECTIONAL_SEQUENCE_RNN", inputs, rnn_options)
    return _sequence_result(lo, rec, cell, out)
