"""Permutation algebra and the edits of the layout pass (onnx-import.md §5.1 convention:
``y = transpose(x, p)`` has ``y.shape[i] = x.shape[p[i]]``, and ``transpose(transpose(x, a),
b) = transpose(x, compose(a, b))`` with ``compose(a, b)[i] = a[b[i]]``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir import Model, Operator, Origin, Shape, Tensor
from ...ir.schema import new_options
from ...passes.toolkit import GraphEditor
from ...passes.toolkit.transpose import transpose_perm
from .ops.common import CHANNELS_LAST

Perm = tuple[int, ...]


def inverse(p: Perm) -> Perm:
    """The permutation undoing ``p``."""
    q = [0] * len(p)
    for i, v in enumerate(p):
        q[v] = i
    return tuple(q)


def compose(a: Perm, b: Perm) -> Perm:
    """``c`` with ``transpose(transpose(x, a), b) = transpose(x, c)``."""
    return tuple(a[i] for i in b)


def is_identity(p: Perm) -> bool:
    return all(i == v for i, v in enumerate(p))


def permuted(shape: Sequence, p: Perm) -> Shape:
    """The shape of ``transpose(x, p)`` for ``x`` of ``shape``."""
    return tuple(shape[i] for i in p)


def unpermuted(shape: Sequence, p: Perm) -> Shape:
    """The shape of ``x`` when ``transpose(x, p)`` has ``shape``."""
    return permuted(shape, inverse(p))


def unit_move(shape: Shape, p: Perm) -> bool:
    """Whether ``transpose(x, p)`` of ``x`` shaped ``shape`` only moves axes of size 1 (so it
    is a RESHAPE; at most one unknown dimension, which the target holds as -1)."""
    moved = [a for a in p if shape[a] != 1]
    return moved == sorted(moved) and sum(d is None for d in shape) <= 1


def swaps_last_two(p: Perm) -> bool:
    r = len(p)
    return r >= 2 and is_identity(p[:-2]) and p[-2:] == (r - 1, r - 2)


def permuted_name(name: str, q: Perm) -> str:
    """The name of the copy ``transpose(<name>, q)`` of a value (§9)."""
    if CHANNELS_LAST.get(len(q)) == q:
        return f"{name}_nhwc"
    return f"{name}_perm_{'_'.join(map(str, q))}"


class LayoutEditor:
    """The graph editor of the layout pass: new TRANSPOSEs (remembered so the pass visits
    them), RESHAPEs, constants, and redirections that keep the graph interface valid."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.begin()

    def begin(self) -> None:
        """A fresh graph editor for the next sweep (after the previous one committed)."""
        self.g = GraphEditor(self.model, 0)
        self.created: list[Operator] = []

    def alive(self, op: Operator) -> bool:
        return self.g.producer(op.outputs[0]) is op

    def perm(self, op: Operator | None) -> Perm | None:
        """The permutation of a TRANSPOSE with a constant one (None for anything else)."""
        return transpose_perm(op)

    def moved(self, op: Operator | None) -> Perm | None:
        """:meth:`perm`, or for a RESHAPE of the same rank that only moves unit axes the
        permutation it applies (the other axes, then the unit ones, each in their order):
        the layout changes the pass moves."""
        p = self.perm(op)
        if p is not None or op is None or op.opcode != "RESHAPE":
            return p
        s, o = op.inputs[0].shape, op.outputs[0].shape
        if len(s) != len(o) or sum(d is None for d in s) > 1:
            return None
        kept = [i for i, d in enumerate(s) if d != 1]
        if [s[i] for i in kept] != [d for d in o if d != 1]:
            return None
        units = iter(i for i, d in enumerate(s) if d == 1)
        others = iter(kept)
        return tuple(next(others) if d != 1 else next(units) for d in o)

    def transposes_of(self, x: Tensor, p: Perm) -> list[Operator]:
        """The live ``TRANSPOSE(x, p)`` operators."""
        return [u for u in self.g.consumers(x) if u.inputs[0] is x and self.perm(u) == p]

    def take_created(self) -> list[Operator]:
        created, self.created = self.created, []
        return created

    def constant(self, name: str, value: np.ndarray, dtype: str) -> Tensor:
        return self.g.const(name, np.asarray(value), dtype)

    def transpose(self, x: Tensor, p: Perm, origin: Origin, name: str) -> Tensor:
        """The output (named ``name``) of a new ``TRANSPOSE(x, p)``."""
        perm = self.g.const(f"{name}/perm", np.asarray(p, np.int32), "INT32")
        out = self.g.tensor(name, x.dtype, permuted(x.shape, p))
        op = self.g.op(
            "TRANSPOSE", [x, perm], new_options("TransposeOptions"), origin=origin, outputs=[out]
        )
        self.created.append(op)
        return out

    def reshape(self, x: Tensor, shape: Shape, origin: Origin, name: str) -> Tensor:
        """The output (named ``name``) of a new ``RESHAPE(x, shape)`` (-1 for an unknown)."""
        target = [-1 if d is None else int(d) for d in shape]
        tensor = self.g.const(f"{name}/shape", np.asarray(target, np.int32), "INT32")
        out = self.g.tensor(name, x.dtype, shape)
        options = new_options("ReshapeOptions", newShape=target)
        op = self.g.op("RESHAPE", [x, tensor], options, origin=origin, outputs=[out])
        self.created.append(op)
        return out

    def rearranged(self, x: Tensor, p: Perm, origin: Origin, name: str) -> Tensor:
        """``transpose(x, p)``: x itself, a RESHAPE when only unit axes move, else a
        TRANSPOSE."""
        if is_identity(p):
            return x
        if unit_move(x.shape, p):
            return self.reshape(x, permuted(x.shape, p), origin, name)
        return self.transpose(x, p, origin, name)

    def can_redirect(self, old: Tensor, new: Tensor) -> bool:
        """Whether the uses of ``old`` may read ``new``: a graph output never becomes a graph
        input, a constant or a second graph output."""
        g = self.g
        return not g.is_output(old) or not (g.is_input(new) or new.is_constant or g.is_output(new))

    def redirect(self, old: Tensor, new: Tensor) -> bool:
        """Make the uses of ``old`` read ``new`` when :meth:`can_redirect` allows it."""
        if not self.can_redirect(old, new):
            return False
        self.g.replace(old, new)
        return True


class Rules:
    """A set of rules editing the graph through one :class:`LayoutEditor`."""

    def __init__(self, e: LayoutEditor) -> None:
        self.e = e

    @property
    def g(self) -> GraphEditor:
        return self.e.g
