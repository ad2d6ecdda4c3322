"""``replace_with_fc_gelu_fc`` (reference ``ReplaceWithFCGeluFCPass``): the exact-erf GELU whose
1/√2 and 1/2 were folded into the neighbouring FullyConnected layers,

    FC3(Mul(FC1(x), Add(Erf(FC2(x)), 1.0)))      with W2 = W1·√½, b2 = b1·√½

(Mul and Add commutative, Erf the custom operator ``Erf`` with one input and one output),
becomes ``FC3'(Gelu(FC1(x), approximate=False))`` with ``W3' = 2·W3``, since
``FC1·(1 + erf(FC1/√2)) = 2·Gelu(FC1)``. FC1 itself is kept (it may have other users).

Conditions: every tensor of the pattern FLOAT32; FC1, FC2, Mul and Add with activation NONE (FC3
keeps its own); FC1 and FC2 read the same input with constant weights of equal shape in the
default format; FC3 has constant weights; each bias constant or absent, FC1 and FC2 both with a
bias or both without; the 1.0 a one-element constant; FC1, FC2 and the Mul results of equal
shape.

Reference: accepts ``|W1·√½ − W2| < 1e-5`` (and the same for the biases) element by element,
an absolute test that lets weights through whose difference shows in the results (a sum over
K inputs multiplies it) and lets any tiny W2 match tiny W1; and it does not compare the shapes.
Here: ``|W1·√½ − W2| ≤ 1e-6·|W1·√½| + FLT_MIN`` (a few float32 roundings, as when a converter
folds the division by √2 into the weights), and the shapes must agree.
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator
from . import graph_pass
from .toolkit import (
    NONE,
    GraphEditor,
    activation,
    const_value,
    is_const_scalar,
    is_float32,
    new_options,
    origin_of,
    other_input,
)
from .toolkit.fully_connected import const_bias, const_weights
from .toolkit.match import single_erf

_SQRT_HALF = np.float32(np.sqrt(0.5))
_RTOL = 1e-6
_FLT_MIN = float(np.finfo(np.float32).tiny)


@graph_pass("replace_with_fc_gelu_fc", exact=False)
def replace_with_fc_gelu_fc(g: GraphEditor) -> int:
    rewrites = 0
    for fc3 in g.ops("FULLY_CONNECTED"):
        matched = _match(g, fc3)
        if matched is None:
            continue
        fc1, fc2, erf, add, mul = matched
        gelu = g.op(
            "GELU",
            [fc1.outputs[0]],
            new_options("GeluOptions", approximate=False),
            origin=origin_of(fc2, erf, add, mul),
            name=f"{erf.outputs[0].name}_gelu",
        )
        w3 = fc3.inputs[1]
        doubled = g.const(f"{w3.name}/x2", const_value(w3) * np.float32(2), "FLOAT32")
        g.replace_with(
            fc3,
            "FULLY_CONNECTED",
            [gelu.outputs[0], doubled, *fc3.inputs[2:]],
            fc3.options,
            origin=fc3.origin,
        )
        rewrites += 1
    return rewrites


def _match(g: GraphEditor, fc3: Operator) -> tuple[Operator, ...] | None:
    """(FC1, FC2, Erf, Add, Mul) of the pattern ending in ``fc3``; None when it does not match."""
    mul = g.producer_of(fc3.inputs[0], "MUL")
    w3 = const_value(fc3.inputs[1])
    if mul is None or w3 is None or w3.ndim != 2:
        return None
    if not const_bias(fc3, w3.shape[0], "FLOAT32")[0]:
        return None
    for fc1_out in mul.inputs[:2]:
        fc1 = g.producer_of(fc1_out, "FULLY_CONNECTED")
        add = g.producer_of(other_input(mul, fc1_out), "ADD")
        erf = _erf_of(g, add) if fc1 is not None and add is not None else None
        fc2 = g.producer_of(erf.inputs[0], "FULLY_CONNECTED") if erf is not None else None
        if fc2 is not None and _matches(fc1, fc2, erf, add, mul, fc3):
            return fc1, fc2, erf, add, mul
    return None


def _erf_of(g: GraphEditor, add: Operator) -> Operator | None:
    """The custom Erf that ``add`` adds the constant 1.0 to."""
    for t in add.inputs[:2]:
        erf = single_erf(g, t)
        if erf is not None and is_const_scalar(other_input(add, t), 1.0):
            return erf
    return None


def _matches(*ops: Operator) -> bool:
    """The conditions on (FC1, FC2, Erf, Add, Mul, FC3) beyond their wiring."""
    fc1, fc2, _, add, mul, _ = ops
    tensors = [t for op in ops for t in (*op.outputs, *op.inputs[:2])]
    if not is_float32(*tensors) or fc1.inputs[0] is not fc2.inputs[0]:
        return False
    if any(activation(op) != NONE for op in (fc1, fc2, add, mul)):
        return False
    if not fc1.outputs[0].shape == fc2.outputs[0].shape == mul.outputs[0].shape:
        return False
    w1, w2 = const_weights(fc1), const_weights(fc2)
    if w1 is None or w2 is None or w1.shape != w2.shape or not _scaled(w1, w2):
        return False
    units = w1.shape[0]
    ok1, b1 = const_bias(fc1, units, "FLOAT32")
    ok2, b2 = const_bias(fc2, units, "FLOAT32")
    if not (ok1 and ok2) or (b1 is None) != (b2 is None):
        return False
    return b1 is None or _scaled(b1, b2)


def _scaled(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether ``second`` is ``first·√½`` up to a few float32 roundings."""
    want = first * _SQRT_HALF
    return bool(np.all(np.abs(want - second) <= _RTOL * np.abs(want) + _FLT_MIN))
