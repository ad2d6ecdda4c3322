"""The decomposed instance normalizations ``fuse_instnorm`` recognizes (optimization.md §5.8;
reference ``FuseInstanceNormPass.cpp``, versions 1 to 7).

Building blocks, each matched in either operand order where the operator is commutative:

* a *mean* of w: ``Mean(w)`` with ``keep_dims`` and constant INT32 axes equal to the layout's;
* the *variance* of w: a mean of ``SquaredDifference(w, μ)`` or of ``Square(Sub(w, μ))``, μ a
  mean of w;
* gamma and beta: FLOAT32 constants that vary along the channel axis only (right-aligned
  ``[C]``/``[1,…,C,…]``, or one element, broadcast).

Forms (w is the tensor the statistics are taken of; every inner operator has no fused
activation, the last one's activation goes to the InstanceNorm):

* **affine** (V1, V5, V6): ``Add(Mul(w, s), shift)`` with ``s = rsqrt(var + eps)`` (V5, V6)
  or ``s = gamma·rsqrt(var + eps)`` (V1), ``shift = Sub(beta, Mul(s, mean))`` or
  ``Add(Mul(s, Neg(mean)), beta)``;
* **unsqueezed** (V7): ``Reshape(affine)`` where ``w = Reshape(x)`` appends a dimension of 1
  to a fully known ``[N,H,W,C]`` x and the outer Reshape removes it again;
* **divided** (V2, V3, V4): ``Div(Sub(w, mean), d)`` with ``d = Pow(var + eps, 0.5)`` (V2),
  ``Sqrt(var + eps)``, or ``Sqrt(var) + eps`` (V3, V4: approximate, the instance norm puts eps
  under the root), alone (V4) or inside ``Add(Mul(·, gamma), beta)`` (V2, V3).

Layouts: NHWC rank 4 (axes {1,2}, channel 3), ``(N, C, D)`` rank 3 (axes {2}, channel 1), and
for V7 the unsqueezed ``[N,H,W,C,1]`` (axes {1,2} or {1,2,4}, channel 3).

Reference differences (all **Adopted** here because the reference fuses graphs whose value
differs from the InstanceNorm it builds, or misses equivalent ones):
* every mean is checked for its axes and keep_dims (V2's mean of x, V3/V4's three means and
  V7's two means are not checked by the reference);
* fused activations of inner operators must be NONE (the reference ignores them);
* gamma/beta must broadcast along the channel axis (the reference's V1/V7 check accepts the
  non-1 dimension at any position, V3 checks nothing, V6 accepts a beta varying along D);
* V3/V4's Div must be ``Div(Sub, denominator)`` (the reference also takes the operands swapped);
* x must be FLOAT32;
* the forms are not tied to one rank, and the affine shift/variance/denominator alternatives are
  accepted in every form (the reference ties each alternative to one version); negative mean
  axes are normalized.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...ir import Operator, Tensor
from ..toolkit import (
    GraphEditor,
    activation,
    const_value,
    is_const_scalar,
    other_input,
    scalar_value,
)
from ..toolkit.match import keep_dims, operand_orders, plain, reduction_axes


@dataclass(frozen=True)
class Layout:
    """Reduction axes of the statistics and the axis gamma and beta vary along."""

    axes: tuple[frozenset[int], ...]
    channel: int


_LAYOUTS = {4: Layout((frozenset({1, 2}),), 3), 3: Layout((frozenset({2}),), 1)}
_UNSQUEEZED = Layout((frozenset({1, 2}), frozenset({1, 2, 4})), 3)


@dataclass
class Match:
    """What replaces ``result``: ``InstanceNorm(x, gamma, beta, epsilon, activation)``."""

    x: Tensor
    gamma: np.ndarray
    beta: np.ndarray
    epsilon: float
    activation: int
    ops: list[Operator]
    result: Tensor


# What the affine form yields: (w, gamma, beta, eps, matched operators).
Parts = tuple[Tensor, np.ndarray, np.ndarray, float, list[Operator]]


def channels_of(x: Tensor) -> int | None:
    """The channel count of an instance-norm input (rank 3: dim 1, rank 4: dim 3)."""
    layout = _LAYOUTS.get(len(x.shape))
    return None if layout is None else x.shape[layout.channel]


def _layout(w: Tensor) -> Layout | None:
    layout = _LAYOUTS.get(len(w.shape))
    if layout is None or w.dtype != "FLOAT32" or w.shape[layout.channel] is None:
        return None
    return layout


def _per_channel(t: Tensor, w: Tensor, layout: Layout) -> np.ndarray | None:
    value = const_value(t)
    rank, channels = len(w.shape), w.shape[layout.channel]
    if value is None or t.dtype != "FLOAT32" or value.ndim > rank:
        return None
    if value.size == 1:
        return np.full(channels, value.reshape(-1)[0], np.float32)
    shape = (1,) * (rank - value.ndim) + value.shape
    if shape[layout.channel] != channels or np.prod(shape) != channels:
        return None
    return value.reshape(-1)


def _reduction(g: GraphEditor, t: Tensor | None, rank: int, layout: Layout) -> Operator | None:
    mean = g.producer_of(t, "MEAN")
    if mean is None or not keep_dims(mean):
        return None
    return mean if reduction_axes(mean.inputs[1], rank) in layout.axes else None


def _mean(g: GraphEditor, t: Tensor | None, w: Tensor, layout: Layout) -> Operator | None:
    mean = _reduction(g, t, len(w.shape), layout)
    return mean if mean is not None and mean.inputs[0] is w else None


def _variance(g: GraphEditor, t: Tensor, w: Tensor, layout: Layout) -> list[Operator] | None:
    var = _reduction(g, t, len(w.shape), layout)
    diff = g.producer_of(var.inputs[0], "SQUARED_DIFFERENCE", "SQUARE") if var else None
    ops = [var]
    if diff is not None and diff.opcode == "SQUARE":
        ops.append(diff)
        diff = g.producer_of(diff.inputs[0], "SUB")
        if not plain(diff):
            return None
    if diff is None:
        return None
    for a, b in operand_orders(diff):
        mean = _mean(g, b, w, layout) if a is w else None
        if mean is not None:
            return [*ops, diff, mean]
    return None


def _plus_epsilon(g: GraphEditor, t: Tensor) -> tuple[Operator, Tensor, float] | None:
    """``Add(v, eps)``, eps a one-element FLOAT32 constant: (the Add, v, eps)."""
    add = g.producer_of(t, "ADD")
    if not plain(add):
        return None
    for v, e in operand_orders(add):
        eps = scalar_value(e)
        if eps is not None and e.dtype == "FLOAT32" and const_value(v) is None:
            return add, v, float(eps)
    return None


def _statistics(
    g: GraphEditor, t: Tensor, w: Tensor, layout: Layout
) -> tuple[float, list[Operator]] | None:
    """``var(w) + eps``: (eps, operators)."""
    found = _plus_epsilon(g, t)
    variance = _variance(g, found[1], w, layout) if found else None
    return None if variance is None else (found[2], [found[0], *variance])


def _scale(
    g: GraphEditor, s: Tensor, w: Tensor, layout: Layout
) -> tuple[np.ndarray, float, list[Operator]] | None:
    """``rsqrt(var + eps)`` or ``gamma·rsqrt(var + eps)``: (gamma, eps, operators)."""
    ones = np.ones(w.shape[layout.channel], np.float32)
    candidates: list[tuple[Operator | None, np.ndarray | None, list[Operator]]]
    candidates = [(g.producer_of(s, "RSQRT"), ones, [])]
    mul = g.producer_of(s, "MUL")
    if plain(mul):
        candidates += [
            (g.producer_of(r, "RSQRT"), _per_channel(c, w, layout), [mul])
            for r, c in operand_orders(mul)
        ]
    for rsqrt, gamma, ops in candidates:
        stats = _statistics(g, rsqrt.inputs[0], w, layout) if rsqrt and gamma is not None else None
        if stats is not None:
            return gamma, stats[0], [*ops, rsqrt, *stats[1]]
    return None


def _shift(
    g: GraphEditor, t: Tensor, s: Tensor, w: Tensor, layout: Layout
) -> tuple[np.ndarray, list[Operator]] | None:
    """``beta − s·mean`` as ``Sub(beta, Mul(s, mean))`` or ``Add(Mul(s, Neg(mean)), beta)``."""
    sub = g.producer_of(t, "SUB")
    if plain(sub):
        mul = g.producer_of(sub.inputs[1], "MUL")
        mean = _mean(g, other_input(mul, s), w, layout) if plain(mul) else None
        beta = _per_channel(sub.inputs[0], w, layout)
        if mean is not None and beta is not None:
            return beta, [sub, mul, mean]
    add = g.producer_of(t, "ADD")
    for m, b in operand_orders(add) if plain(add) else ():
        mul = g.producer_of(m, "MUL")
        neg = g.producer_of(other_input(mul, s), "NEG") if plain(mul) else None
        mean = _mean(g, neg.inputs[0], w, layout) if neg else None
        beta = _per_channel(b, w, layout)
        if mean is not None and beta is not None:
            return beta, [add, mul, neg, mean]
    return None


def _affine(
    g: GraphEditor, add: Operator, layout_of: Callable[[Tensor], Layout | None]
) -> Parts | None:
    """``Add(Mul(w, s), shift)`` with w's layout given by ``layout_of``."""
    for scaled, shift_t in operand_orders(add):
        mul = g.producer_of(scaled, "MUL")
        for w, s in operand_orders(mul) if plain(mul) else ():
            layout = layout_of(w)
            scale = _scale(g, s, w, layout) if layout else None
            shift = _shift(g, shift_t, s, w, layout) if scale else None
            if shift is not None:
                gamma, eps, scale_ops = scale
                return w, gamma, shift[0], eps, [add, mul, *scale_ops, *shift[1]]
    return None


def affine(g: GraphEditor, add: Operator) -> Match | None:
    """V1, V5, V6 ending in ``add``."""
    found = _affine(g, add, _layout)
    if found is None:
        return None
    x, gamma, beta, eps, ops = found
    return Match(x, gamma, beta, eps, activation(add), ops, add.outputs[0])


def unsqueezed(g: GraphEditor, reshape: Operator) -> Match | None:
    """V7 ending in ``reshape``."""
    add = g.producer_of(reshape.inputs[0], "ADD")
    out = reshape.outputs[0]

    def layout_of(w: Tensor) -> Layout | None:
        inner = g.producer_of(w, "RESHAPE")
        x = inner.inputs[0] if inner else None
        if x is None or x.dtype != "FLOAT32" or len(x.shape) != 4 or None in x.shape:
            return None
        return _UNSQUEEZED if w.shape == (*x.shape, 1) and out.shape == x.shape else None

    found = _affine(g, add, layout_of) if add else None
    if found is None:
        return None
    w, gamma, beta, eps, ops = found
    inner = g.producer_of(w, "RESHAPE")
    ops = [reshape, inner, *ops]
    return Match(inner.inputs[0], gamma, beta, eps, activation(add), ops, out)


def _denominator(
    g: GraphEditor, t: Tensor, w: Tensor, layout: Layout
) -> tuple[float, list[Operator]] | None:
    root = g.producer_of(t, "POW", "SQRT")
    if root is not None and (root.opcode == "SQRT" or is_const_scalar(root.inputs[1], 0.5)):
        stats = _statistics(g, root.inputs[0], w, layout)
        if stats is not None:
            return stats[0], [root, *stats[1]]
    found = _plus_epsilon(g, t)  # sqrt(var) + eps: eps outside the root (approximate)
    sqrt = g.producer_of(found[1], "SQRT") if found else None
    variance = _variance(g, sqrt.inputs[0], w, layout) if sqrt else None
    return None if variance is None else (found[2], [found[0], sqrt, *variance])


def _divided(g: GraphEditor, div: Operator) -> tuple[Tensor, float, list[Operator]] | None:
    """``Div(Sub(x, mean), denominator)``: (x, eps, operators)."""
    sub = g.producer_of(div.inputs[0], "SUB")
    x = sub.inputs[0] if plain(sub) else None
    layout = _layout(x) if x is not None else None
    mean = _mean(g, sub.inputs[1], x, layout) if layout else None
    found = _denominator(g, div.inputs[1], x, layout) if mean else None
    return None if found is None else (x, found[0], [div, sub, mean, *found[1]])


def divided(g: GraphEditor, div: Operator) -> Match | None:
    """V4 (and V2's or the exact ``Sqrt(var + eps)`` denominator alone) ending in ``div``:
    gamma 1, beta 0."""
    found = _divided(g, div)
    if found is None:
        return None
    x, eps, ops = found
    channels = x.shape[_LAYOUTS[len(x.shape)].channel]
    ones, zeros = np.ones(channels, np.float32), np.zeros(channels, np.float32)
    return Match(x, ones, zeros, eps, activation(div), ops, div.outputs[0])


def divided_affine(g: GraphEditor, add: Operator) -> Match | None:
    """V2, V3 ending in ``add``: ``Add(Mul(divided, gamma), beta)``."""
    for scaled, beta_t in operand_orders(add):
        mul = g.producer_of(scaled, "MUL")
        for d, gamma_t in operand_orders(mul) if plain(mul) else ():
            div = g.producer_of(d, "DIV")
            found = _divided(g, div) if plain(div) else None
            if found is None:
                continue
            x, eps, ops = found
            layout = _LAYOUTS[len(x.shape)]
            gamma, beta = _per_channel(gamma_t, x, layout), _per_channel(beta_t, x, layout)
            if gamma is not None and beta is not None:
                ops = [add, mul, *ops]
                return Match(x, gamma, beta, eps, activation(add), ops, add.outputs[0])
    return None
