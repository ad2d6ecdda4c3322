"""Rules 1 and 2 of the layout pass (onnx-import.md §5.3): a TRANSPOSE of a constant is
folded, an identity one removed, identical ones merged, ``TRANSPOSE(TRANSPOSE(x, a), b)``
composed, and a TRANSPOSE sunk into all its consumers at once when each is pushable (§5.4)
and the cost (TRANSPOSEs with a non-constant input) does not rise: at equal cost only when no
side TRANSPOSE is added (a side operand whose move only shifts unit axes is a RESHAPE and
costs nothing), no consumer is a reshape (rule 3 owns those chains) and the TRANSPOSE does not
read a graph input (so it stays there, §5.5 (a)).

Beyond §5.3: when sinking into the consumers alone would leave a side operand, the sink grows
back from it through pushable operators to values it already reads (:meth:`Sink._closed`),
so a diamond (Paddle's spelled-out hard swish, ``y * clip(y + 3, 0, 6) / 6``) is rewritten
as one region; and an output TRANSPOSE heading a reshape chain costs what rule 3 then makes of
that chain (a detector head's ``TRANSPOSE → RESHAPE → TRANSPOSE`` becomes one RESHAPE).

Origins (circle §9): a composed or merged TRANSPOSE has the union of both; the TRANSPOSEs a
sink adds after a consumer the union of the TRANSPOSEs it read through, a side one (or side
RESHAPE) the sunk TRANSPOSE's; a rewritten consumer keeps its own.
"""

from __future__ import annotations

import numpy as np

from ...ir import Operator, Tensor
from ...passes.toolkit import const_value, origin_of
from .layout_chains import Chains
from .layout_edit import (
    LayoutEditor,
    Perm,
    Rules,
    compose,
    inverse,
    is_identity,
    permuted_name,
    unit_move,
    unpermuted,
)
from .layout_pushable import Plan, plan

# How a layout operand of a consumer is read once the TRANSPOSE sinks (see _classify).
X, THROUGH, PENDING, CONST, RESHAPED, REUSED, SIDE = range(7)
# the most operators one sink rewrites when it grows to close a branch (Sink._closed)
REGION_LIMIT = 32


class Sink(Rules):
    """Rules 1 and 2 for one TRANSPOSE at a time."""

    def __init__(self, e: LayoutEditor) -> None:
        super().__init__(e)
        self.chains = Chains(e)

    def visit(self, t: Operator) -> bool:
        """Apply rules 1 and 2 to the live TRANSPOSE ``t`` (or RESHAPE moving unit axes: the
        TRANSPOSE it stands for); whether anything changed."""
        p = self.e.moved(t)
        if p is None:
            return False
        x, out = t.inputs[0], t.outputs[0]
        value = const_value(x)
        if value is not None:
            folded = np.transpose(value, p)
            name = permuted_name(x.name, p)
            return self.e.redirect(out, self.e.constant(name, folded, x.dtype))
        if is_identity(p):
            return self.e.redirect(out, x)
        inner = self.g.producer(x)
        a = self.e.moved(inner)
        if a is not None:
            return self._compose(inner, a, t, p)
        changed = self._merge_twins(t, p)
        changed = self._compose_readers(t, p) or changed
        return (self.e.alive(t) and self._sink(t, p)) or changed

    # -- rule 1 ------------------------------------------------------------------------------
    def _merge_twins(self, t: Operator, p: Perm) -> bool:
        """Other ``TRANSPOSE(x, p)`` read ``t`` instead."""
        changed = False
        for twin in self.e.transposes_of(t.inputs[0], p):
            if twin is not t and not self.g.is_output(twin.outputs[0]):
                t.origin = origin_of(t, twin)
                self.g.replace(twin.outputs[0], t.outputs[0])
                changed = True
        return changed

    def _compose_readers(self, t: Operator, p: Perm) -> bool:
        """Rule 1 on each ``TRANSPOSE(t, b)``."""
        changed = False
        out = t.outputs[0]
        for u in self.g.consumers(out):
            b = self.e.moved(u)
            if b is not None and u.inputs[0] is out:
                changed = self._compose(t, p, u, b) or changed
        return changed

    def _compose(self, inner: Operator, a: Perm, outer: Operator, b: Perm) -> bool:
        """``outer = TRANSPOSE(TRANSPOSE(x, a), b)`` becomes ``TRANSPOSE(x, compose(a, b))``,
        or ``x`` when that is the identity."""
        x, out = inner.inputs[0], outer.outputs[0]
        c = compose(a, b)
        if is_identity(c):
            return self.e.redirect(out, x)
        self.g.replace(out, self.e.rearranged(x, c, origin_of(inner, outer), out.name))
        return True

    # -- rule 2 ------------------------------------------------------------------------------
    def _sink(self, t: Operator, p: Perm) -> bool:
        out = t.outputs[0]
        readers = self.g.consumers(out)
        if self.g.is_output(out) or not readers:
            return False
        plans: dict[int, Plan] = {}
        for f in readers:
            found = plan(f, out, p)
            if found is None:
                return False
            plans[id(f)] = found
        region = {id(f): f for f in readers}
        if not self._allowed(t, p, region, plans):
            region, plans = self._closed(t, p, region, plans)
            if region is None or not self._allowed(t, p, region, plans):
                return False
        made: dict[int, tuple] = {}
        for f in _ordered(list(region.values())):
            self._rewrite(f, plans[id(f)], t, p, made)
        return True

    def _allowed(
        self, t: Operator, p: Perm, region: dict[int, Operator], plans: dict[int, Plan]
    ) -> bool:
        """The cost rule for sinking ``t`` into the operators of ``region``."""
        delta, side = self._cost(t, p, list(region.values()), plans)
        strict = side or self.g.is_input(t.inputs[0]) or any(x.strict for x in plans.values())
        return delta < 0 or (delta == 0 and not strict)

    def _closed(
        self, t: Operator, p: Perm, region: dict[int, Operator], plans: dict[int, Plan]
    ) -> tuple[dict[int, Operator] | None, dict[int, Plan]]:
        """``region`` grown so that branches leaving ``t`` meet again in one layout: each side
        operand whose producer is pushable with every output in layout ``p`` takes that
        producer into the region, back to values the region reads already (a hard swish
        ``x * relu6(x + 3) / 6`` reads ``x`` in the ADD and in the MUL). None when some side
        operand does not lead back that way within :data:`REGION_LIMIT` operators."""
        region, plans = dict(region), dict(plans)
        work = [w for f in region.values() for w in self._layout_operands(f, plans)]
        while work:
            w = work.pop()
            if self._classify(w, t, p, plans)[0] != SIDE:
                continue
            src = self.g.producer(w)
            if src is None or id(src) in region or len(region) >= REGION_LIMIT:
                return None, plans
            found = self._plan_same(src, p)
            if found is None:
                return None, plans
            region[id(src)], plans[id(src)] = src, found
            work += self._layout_operands(src, plans)
        return region, plans

    def _plan_same(self, op: Operator, p: Perm) -> Plan | None:
        """The plan for ``op`` reading its first non-constant operand in layout ``p`` when
        every output keeps ``p`` (the operators a branch passes through unchanged)."""
        carried = next((w for w in op.inputs if w is not None and not w.is_constant), None)
        found = None if carried is None else plan(op, carried, p)
        if found is None or found.strict or any(q != p for q in found.out_perms):
            return None
        return found

    def _layout_operands(self, f: Operator, plans: dict[int, Plan]) -> list[Tensor]:
        return [f.inputs[i] for i in plans[id(f)].layout]

    def _classify(self, w: Tensor, t: Operator, p: Perm, plans: dict[int, Plan]) -> tuple:
        """How layout operand ``w`` is read after the sink: (kind, detail)."""
        if w is t.outputs[0]:
            return X, t.inputs[0]
        src = self.g.producer(w)
        if src is not None and id(src) in plans:
            if plans[id(src)].out_perms[src.outputs.index(w)] == p:
                return PENDING, None
        elif self.e.moved(src) == p and const_value(src.inputs[0]) is None:
            return THROUGH, src
        if const_value(w) is not None:
            return CONST, None
        q = inverse(p)
        if unit_move(w.shape, q):
            return RESHAPED, None
        existing = self.e.transposes_of(w, q)
        return (REUSED, existing[0].outputs[0]) if existing else (SIDE, None)

    def _cost(
        self, t: Operator, p: Perm, readers: list[Operator], plans: dict[int, Plan]
    ) -> tuple[int, bool]:
        """(TRANSPOSEs added - TRANSPOSEs removed, whether a side TRANSPOSE is added)."""
        through: dict[int, Operator] = {}
        sides: set[int] = set()
        for f in readers:
            for i in plans[id(f)].layout:
                kind, detail = self._classify(f.inputs[i], t, p, plans)
                if kind == THROUGH:
                    through[id(detail)] = detail
                elif kind == SIDE:
                    sides.add(id(f.inputs[i]))
        removed = 1 + sum(self._read_only_by(src.outputs[0], plans) for src in through.values())
        added = len(sides) + sum(
            self._output_cost(o, q, p, plans)
            for f in readers
            for o, q in zip(f.outputs, plans[id(f)].out_perms, strict=True)
        )
        return added - removed, bool(sides)

    def _read_only_by(self, w: Tensor, plans: dict[int, Plan]) -> bool:
        return not self.g.is_output(w) and all(id(c) in plans for c in self.g.consumers(w))

    def _output_cost(self, o: Tensor, q: Perm, p: Perm, plans: dict[int, Plan]) -> int:
        """1 for the TRANSPOSE an output gets, 0 when there is none (identity, a unit-axis
        move, no reader) or every reader takes it away (a sunk consumer reading it in the
        same layout, or a TRANSPOSE it composes with to the identity)."""
        if is_identity(q) or unit_move(unpermuted(o.shape, q), q):
            return 0
        if self.g.is_output(o):
            return 1
        ahead = self.chains.added_transposes(o, q)
        if ahead is not None:
            return ahead
        for c in self.g.consumers(o):
            same = id(c) in plans and q == p and _only_at(c, o, plans[id(c)].layout)
            b = self.e.perm(c)
            if not same and not (b is not None and is_identity(compose(q, b))):
                return 1
        return 0

    def _rewrite(self, f: Operator, found: Plan, t: Operator, p: Perm, made: dict) -> None:
        """Replace ``f`` by ``f'`` reading ``x`` and its outputs by ``transpose(f'(x), p')``
        (``made``: the operands already made for this sink, by the id of what they stand for)."""
        inputs = list(f.inputs) + [None] * (max(found.params, default=-1) + 1 - len(f.inputs))
        through = []
        for i in found.layout:
            w = f.inputs[i]
            if id(w) not in made:
                made[id(w)] = self._operand(w, t, p)
            inputs[i], src = made[id(w)]
            through += [src] if src is not None else []
        for i, value in found.params.items():
            old = f.inputs[i] if i < len(f.inputs) else None
            dtype = old.dtype if old is not None and old.is_constant else "INT32"
            name = f"{(old or f.outputs[0]).name}_remapped"
            inputs[i] = self.e.constant(name, value, dtype)
        outs = [
            self.g.tensor(permuted_name(o.name, inverse(q)), o.dtype, unpermuted(o.shape, q))
            for o, q in zip(f.outputs, found.out_perms, strict=True)
        ]
        version = f.version if found.opcode == f.opcode else 1
        self.g.op(
            found.opcode, inputs, found.options, origin=f.origin, outputs=outs, version=version
        )
        origin = origin_of(t, *through)
        for o, new, q in zip(f.outputs, outs, found.out_perms, strict=True):
            if self.g.consumers(o) or self.g.is_output(o):
                self.g.replace(o, self.e.rearranged(new, q, origin, f"{o.name}/sunk"))

    def _operand(self, w: Tensor, t: Operator, p: Perm) -> tuple[Tensor, Operator | None]:
        """The operand of ``f'`` standing for layout operand ``w`` of ``f`` (and the TRANSPOSE
        it reads through, if any)."""
        kind, detail = self._classify(w, t, p, {})
        if kind in (X, REUSED):
            return detail, None
        if kind == THROUGH:
            return detail.inputs[0], detail
        q = inverse(p)
        name = permuted_name(w.name, q)
        if kind == CONST:
            return self._folded(w, q, name), None
        return self.e.rearranged(w, q, t.origin, name), None

    def _folded(self, w: Tensor, q: Perm, name: str) -> Tensor:
        """A constant operand rank-expanded with leading ones and permuted by ``q``; a
        one-element constant broadcasts the same way in any layout and is kept."""
        value = const_value(w)
        if value.size == 1:
            return w
        expanded = value.reshape((1,) * (len(q) - value.ndim) + value.shape)
        return self.e.constant(name, np.transpose(expanded, q), w.dtype)


def _only_at(op: Operator, w: Tensor, positions: tuple[int, ...]) -> bool:
    return all(i in positions for i, v in enumerate(op.inputs) if v is w)


def _ordered(ops: list[Operator]) -> list[Operator]:
    """``ops`` so that an operator comes after those of ``ops`` whose outputs it reads."""
    produced = {id(t): op for op in ops for t in op.outputs}
    done: set[int] = set()
    order: list[Operator] = []

    def add(op: Operator) -> None:
        if id(op) in done:
            return
        done.add(id(op))
        for w in op.inputs:
            if w is not None and id(w) in produced:
                add(produced[id(w)])
        order.append(op)

    for op in ops:
        add(op)
    return order
